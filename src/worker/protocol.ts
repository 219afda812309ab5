/**
 * The wire between the three contexts, in one place (like msw's typed message map):
 * page ⇄ service worker messages, page → engine worker messages, and the comlink API the engine
 * worker exposes on every port it is handed. Types only plus constants: this file is imported by the
 * service worker too, so it must stay free of DOM and of service-worker globals.
 */
import type { ApiErrorData } from '../common/api-error';
import type { RemoteServerSpec } from '../engine/remote/remote-options';
import type { LoadProgress } from '../engine/types';
import type { WllamaModelSpec } from '../engine/wllama/wllama-model-spec';

/**
 * Bumped whenever the shape of {@link EngineApi} or the messages change. `ping()` returns it so a
 * service worker left over from an older deploy notices that it speaks to a newer worker (msw's
 * integrity handshake, simplified).
 */
export const PROTOCOL_VERSION = 1;

/** A Fetch `Request` as plain, transferable data. The body is a whole ArrayBuffer (requests are small). */
export interface SerializedRequest {
  /** Correlates `handle` with `abort`; unique per service-worker lifetime. */
  id: string;
  method: string;
  url: string;
  headers: [string, string][];
  body: ArrayBuffer | null;
}

/**
 * A Fetch `Response` as plain data. `body` is the core's own ReadableStream, moved with
 * `Comlink.transfer(res, [body])`: chunks flow worker → service worker → page without a round trip
 * per chunk, and the page cancelling the fetch cancels this very stream in the worker.
 */
export interface SerializedResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: ReadableStream<Uint8Array> | null;
  /**
   * Fallback where a ReadableStream cannot be transferred (older Safari): a port on which a
   * {@link BodyPuller} is exposed, read chunk by chunk (msw's buffered fallback, but still streaming).
   * A port rather than a `Comlink.proxy`: comlink only converts proxies at the top level of a value.
   */
  pull?: MessagePort;
}

/** One body read through comlink: `read()` per chunk, `cancel()` when the reader gives up. */
export interface BodyPuller {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: string): Promise<void>;
}

/** WebGPU as the engine worker sees it, for a status line. */
export interface GpuStatus {
  available: boolean;
  /** Vendor / architecture / description of the adapter, when there is one. */
  adapter: string | null;
  features: string[];
  /** Why WebGPU is unavailable, in words. */
  reason?: string;
}

/** Answer to `ping()`. */
export interface Pong {
  protocol: number;
}

/**
 * What the engine worker exposes with `Comlink.expose(api, port)` on every port it receives.
 * Methods never reject with a real `Error` (comlink keeps only name/message/stack of those):
 * they reject with {@link ApiErrorData}, which `toApiError` turns back into an `ApiError`.
 *
 * @example
 * const api = Comlink.wrap<EngineApi>(port);
 * const res = await api.handle(await serializeRequest(request, 'r1'));
 */
export interface EngineApi {
  /** Runs one request through the Responses core. Always resolves (errors are OpenAI error responses). */
  handle(req: SerializedRequest): Promise<SerializedResponse>;
  /** Aborts the request `id` if `handle` has not answered yet (the caller gave up on it). */
  abort(id: string): Promise<void>;
  /** Cheap liveness probe: a dead MessagePort never answers, so callers race it against a timeout. */
  ping(): Promise<Pong>;
  /** Loads a model, calling `onProgress` (a `Comlink.proxy`) as weights arrive. */
  loadModel(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void>;
  /**
   * Stops `loadModel(modelId)` in flight: it (and every request waiting on it) rejects with a 503
   * `model_load_cancelled`. Resolves whether one was stopped. Pages call it; the service worker
   * never does, so its protocol is unchanged.
   */
  cancelLoad(modelId: string): Promise<boolean>;
  gpuStatus(): Promise<GpuStatus>;
  /**
   * Registers a GGUF model with the llama.cpp engine (a File the user picked, or a URL), replacing
   * one of the same id; answers its `/v1/models` entry. Pages call it; the service worker never
   * does, so its protocol is unchanged.
   */
  addModel(spec: AddModelSpec): Promise<ModelListing>;
  /**
   * Adds an OpenAI-compatible server to the remote engine (until the engine worker restarts) and
   * answers its models' `/v1/models` entries. Its key stays in the worker's memory only.
   */
  addRemote(spec: RemoteServerSpec): Promise<ModelListing[]>;
}

/** A GGUF model to serve: `files` (the user's pick; a File travels by reference) or `url`. */
export type AddModelSpec = WllamaModelSpec;

/** A model as `GET /v1/models` lists it. */
export interface ModelListing {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  engine?: string;
  cached?: boolean;
  device?: string;
}

/** Service worker → page. */
export type SwToPageMessage = { type: 'need-port' };

/**
 * Page → service worker. `port` carries one end of a fresh MessageChannel (the engine worker holds
 * the other) in `event.ports[0]`; `leader` says the sender won the Web Locks election, so its port
 * replaces every other tab's (whose tab must be gone). `claim` asks an active worker to control the page after a
 * Shift+reload, where `activate` (and its `clients.claim()`) does not run again. `leaving` comes from a
 * tab that handed over ports, on `pagehide`: its engine worker dies with it, so its links end now.
 * `restarted` marks the first port of a worker that replaced a stuck one in the same tab: the
 * service worker ends that tab's earlier links (an older service worker ignores the field).
 */
export type PageToSwMessage =
  | { type: 'port'; protocol: number; leader?: boolean; restarted?: boolean }
  | { type: 'claim' }
  | { type: 'leaving' };

/**
 * Page → engine worker: `connect` exposes the API on `event.ports[0]`; `remote` hands over the
 * remote servers of `startIntab({ remote })`, posted before any `connect`. They travel as a message,
 * not in the worker's name with the other options: a name is visible to every script and tool that
 * lists workers, and the servers' keys are secrets.
 */
export type PageToWorkerMessage = { type: 'connect' } | { type: 'remote'; servers: RemoteServerSpec[] };

/** The Web Lock whose holder is the leader: the one tab of the origin that runs the engine worker. */
export const LEADER_LOCK = 'intab:engine-leader';

/** The BroadcastChannel on which tabs of the origin talk about the leader (DESIGN §5). */
export const LEADER_CHANNEL = 'intab:engine';

/**
 * Which engine a tab would run (issue 43): `build`, its engine worker's script URL (hashed per build:
 * it names the lazy chunks the worker imports), and `since`, when the tab loaded
 * (`performance.timeOrigin`). A tab loaded later with another build is of a newer deploy.
 */
export interface TabBuild {
  build: string;
  since: number;
}

/** The {@link EngineApi} methods a follower tab calls on the leader's worker through the channel. */
export type RelayedCall =
  | { method: 'gpuStatus' }
  | { method: 'addModel'; spec: AddModelSpec }
  | { method: 'addRemote'; spec: RemoteServerSpec }
  | { method: 'cancelLoad'; modelId: string }
  | {
      method: 'loadModel';
      modelId: string /** Whether the caller wants `progress` messages. */;
      progress: boolean;
    };

/**
 * Tab ⇄ tab, over the {@link LEADER_CHANNEL} BroadcastChannel. MessagePorts cannot travel on a
 * BroadcastChannel, so a follower never gets a port into the leader's worker: it relays the service
 * worker's `need-port` (the leader then posts a port to the service worker itself), and its own
 * `loadModel`/`gpuStatus` go as `call`s that the leader runs and answers.
 * - `leader`: a tab was elected; `leaderId` is fresh per election, with its {@link TabBuild} (an
 *   older intab's leader sends none). Sent again on `who-leads`, which a tab asks as it starts.
 * - `need-port`: a follower relays the service worker's `need-port`.
 * - `call` → `accepted` (by which leader), then `progress`* and one `result`.
 */
export type TabMessage =
  | ({ type: 'leader'; leaderId: string } & Partial<TabBuild>)
  | { type: 'who-leads' }
  | { type: 'need-port' }
  | { type: 'call'; callId: string; call: RelayedCall }
  | { type: 'accepted'; callId: string; leaderId: string }
  | { type: 'progress'; callId: string; progress: LoadProgress }
  | { type: 'result'; callId: string; ok: true; value: unknown }
  | { type: 'result'; callId: string; ok: false; error: ApiErrorData };

/** Narrows `event.data` of a message event to one of the messages above, by `type`. */
export function isMessage<M extends { type: string }>(data: unknown, type: M['type']): data is M {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === type;
}

export type { ApiErrorData };
