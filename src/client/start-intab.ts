/**
 * Page glue: registers the service worker, joins the leader election (DESIGN §5), and, in the one
 * tab that wins it, starts the engine worker and keeps the service worker connected to it.
 */

import { Workbox } from 'workbox-window';
import { serviceUnavailable } from '../common/api-error';
import type { RemoteServerSpec } from '../engine/remote/remote-options';
import type { LoadProgress } from '../engine/types';
import { withDeadline } from '../worker/deadline';
import {
  type AddModelSpec,
  type GpuStatus,
  LEADER_CHANNEL,
  type ModelListing,
  type RelayedCall,
} from '../worker/protocol';
import type {
  CodeInterpreterOptions,
  FileSearchOptions,
  ServerOptions,
  StoreOptions,
  WebLLMOptions,
  WllamaOptions,
} from '../worker/worker-options';
import { followNewestBuild } from './build-takeover';
import { type SupervisedEngine, superviseEngine } from './engine-supervisor';
import { engineWorkerUrl, startEngineWorker } from './engine-worker-client';
import { installWebSocket } from './install-web-socket';
import { electLeader, runLocksReleased } from './leader-election';
import {
  ACCEPT_MS,
  type CallRunner,
  LeaderCalls,
  runCall,
  serveFollowers,
  type TabChannel,
} from './leader-relay';
import { brokerPorts, type PortBroker } from './port-broker';
import { waitForControl, waitForModels } from './readiness';
import { type IntabUpdates, watchUpdates } from './updates';

/** The handle a page gets from {@link startIntab}; `onUpdate`/`applyUpdate`: updates.ts. */
export interface IntabClient extends IntabUpdates {
  /** Resolves when the page is controlled and fetch('/v1/models') answers 200 through the SW. Rejects after a bound with a clear error. */
  ready: Promise<void>;
  /** Loads a model in the engine worker (the leading tab's, wherever that is), forwarding progress. */
  loadModel(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void>;
  /**
   * Stops a `loadModel(modelId)` in flight, in whichever tab started it: that call rejects with a
   * 503 `model_load_cancelled` and the model stays unloaded; what was fully downloaded stays cached.
   * Resolves true when a load was stopped.
   */
  cancelLoad(modelId: string): Promise<boolean>;
  /** WebGPU status of the engine worker, for a status line. */
  gpuStatus(): Promise<GpuStatus>;
  /**
   * Serves a GGUF model with the llama.cpp engine from now on (until the engine worker restarts):
   * a file the user picked (`files`), or a URL. Relative URLs resolve against this page.
   *
   * @example
   * const [file] = input.files; await intab.addModel({ id: 'my-model', files: [file] });
   */
  addModel(spec: AddModelSpec): Promise<ModelListing>;
  /**
   * Adds an OpenAI-compatible server (vLLM, SGLang, Ollama, LM Studio, llama-server, OpenAI) from
   * now on (until the engine worker restarts): its models (`models`, or its `GET /v1/models`) are
   * listed with `engine: 'remote'` and served by forwarding each pass to `{baseURL}/chat/completions`.
   * The key stays in the engine worker's memory: never stored, never echoed, sent to `baseURL` only.
   *
   * @example
   * const models = await intab.addRemote({ baseURL: 'http://127.0.0.1:8080/v1', apiKey: 'sk-…' });
   */
  addRemote(spec: RemoteServerSpec): Promise<ModelListing[]>;
  /** Whether this tab runs the origin's engine worker (it won the leader election). */
  isLeader(): boolean;
}

export interface StartIntabOptions {
  /** The service worker's script (intab's own or the app's, which calls `installIntab(self)`); `/sw.js` by default. */
  swUrl?: string;
  /**
   * The engine worker's script, for bundlers that do not bundle `new Worker(new URL(…, import.meta.url))`
   * (esbuild, Rollup without a worker plugin, no bundler): build `intab/engine-worker` as a module
   * entry of its own and give its URL here. Vite (with `intab/vite`) and webpack 5 need nothing.
   */
  workerUrl?: string | URL;
  /** Registration scope; `/` by default. The API is served at `{scope}v1/`. */
  scope?: string;
  /** Bound on {@link IntabClient.ready}, including the first install's precache. Default 30 s. */
  readyTimeoutMs?: number;
  /**
   * How long the engine worker this tab runs may answer no ping before the tab terminates it and
   * starts a new one (a synchronous loop that never ends). Its unfinished responses then end
   * `failed`, and the next request is served by the new worker. A worker that never answered its
   * first ping counts from its start (bound doubled after each such restart, for a slow first load);
   * one whose script failed is left alone. Default 15 s; 0 never restarts it.
   * The service worker keeps waiting on a busy worker for 20 s: a bound above that only means 503s
   * between the two.
   */
  stuckWorkerMs?: number;
  /**
   * Limits of the IndexedDB store: `ttlMs` (entries older answer 404 and are swept), `maxResponses`,
   * `maxConversations` (the oldest beyond are dropped). Applied by the tab that runs the engine.
   */
  store?: StoreOptions;
  /**
   * web-llm settings: `models` adds (or replaces, by `model_id`) model records, e.g. self-hosted
   * weights and model libraries; `cacheBackend` picks where weights are cached ('cache', 'indexeddb',
   * …); `loadTimeoutMs` bounds a load whose download goes silent; `maxQueue` caps the requests
   * waiting for the GPU (one more gets a 429); `generationStallMs` bounds a generation that stops
   * producing tokens.
   */
  webllm?: WebLLMOptions;
  /**
   * The Responses server's own bounds: `streamIdleMs`, how long a stream may go unread before its
   * run stops; and `responseBodies: 'pipe'`, to test the MessagePort pipe Safari's older releases take.
   */
  server?: ServerOptions;
  /**
   * GGUF models for the llama.cpp engine (`@wllama/wllama`, CPU or WebGPU, any browser):
   * `models: [{ id, url, label?, contextSize?, device?, threads?, kind? }]` (relative URLs resolve
   * against this page; a split model is named by its first shard), and the bounds
   * `loadTimeoutMs`, `stallTimeoutMs`, `maxLoaded`.
   */
  wllama?: WllamaOptions;
  /**
   * `file_search` and `/v1/vector_stores`: `embeddingModel` is the model new stores are built with
   * (default: the smallest listed embedding model other than `scripted`); each store's queries are
   * embedded with its own model. With the option set, a store built with another model answers
   * searches with a 400 that says so.
   */
  fileSearch?: FileSearchOptions;
  /**
   * `code_interpreter` (Python in a Pyodide sandbox worker, served by `intab/vite` at
   * `/intab-python/`): `timeoutMs` is one call's wall time (default 30 s); past it the sandbox is
   * terminated, the call ends `failed` and its container restarts empty.
   */
  codeInterpreter?: CodeInterpreterOptions;
  /**
   * OpenAI-compatible servers whose models intab serves next to the local ones:
   * `{ baseURL, apiKey?, headers?, models? }` (models default to the server's `GET /v1/models`).
   * A local engine serving the same id wins; see {@link IntabClient.addRemote}.
   */
  remote?: RemoteServerSpec | RemoteServerSpec[];
  /**
   * WebSocket mode: `new WebSocket('ws(s)://<this origin>/v1/responses')` in this page is served by
   * intab (see {@link installWebSocket}); every other URL keeps the browser's own WebSocket.
   */
  webSocket?: boolean;
  /**
   * Reload every open page into a new build as soon as it is installed (vite-plugin-pwa's
   * `registerType: 'autoUpdate'`), instead of waiting for {@link IntabClient.applyUpdate}.
   * Default false: a page hears `onUpdate` and picks its moment (an unsent message, a generation).
   */
  autoUpdate?: boolean;
}

let started: IntabClient | undefined;

/** How long a new leader waits for the dead leader's run locks to go before it starts recovery. */
const RUN_LOCK_DRAIN_MS = 2_000;

/**
 * Starts intab in this page. Idempotent: a second call returns the first client. Of all the tabs of
 * the origin, only the leader runs an engine worker (each would load its own copy of a model into
 * GPU memory); the service worker sends every tab's `/v1/*` requests there.
 *
 * @example
 * const intab = startIntab();
 * await intab.ready;
 * const res = await fetch('/v1/responses', { method: 'POST', body: JSON.stringify({ model: 'scripted', input: 'hi' }) });
 *
 * // Built with esbuild: the app's own service worker, and the worker built from intab/engine-worker.
 * startIntab({ swUrl: '/sw.js', workerUrl: '/engine-worker.js' });
 */
export function startIntab(opts: StartIntabOptions = {}): IntabClient {
  if (started) return started;
  const channel = openTabChannel();
  const calls = channel ? new LeaderCalls(channel) : null;
  let engine: SupervisedEngine | null = null;
  // A worker that fails to start rejects `ready` with its error; a failure after that is logged.
  let engineFailed: (err: Error) => void = () => {};
  const engineFailure = new Promise<never>((_, reject) => {
    engineFailed = reject;
  });
  let settled = false;
  const container = navigator.serviceWorker as ServiceWorkerContainer | undefined;
  // The build this tab's engine would run: a tab of a newer one takes the lead over (build-takeover.ts).
  const build = { build: engineWorkerUrl(opts.workerUrl), since: performance.timeOrigin };
  let serving: { stop(): void } | null = null;
  const deposed = (): void => {
    serving?.stop();
    serving = null;
    engine?.end(serviceUnavailable('A tab of a newer build of this app runs the engine now; retry.'));
    engine = null;
  };
  const lead = async (): Promise<void> => {
    await runLocksReleased(navigator.locks, RUN_LOCK_DRAIN_MS);
    // A tab of a newer build took the lead over while the old runs drained.
    if (!election.isLeader) return;
    const remote = opts.remote ? (Array.isArray(opts.remote) ? opts.remote : [opts.remote]) : [];
    const options = {
      remote: remote.length > 0 ? { servers: remote.length } : undefined,
      store: opts.store,
      webllm: opts.webllm,
      server: opts.server,
      wllama: absoluteUrls(opts.wllama),
      fileSearch: opts.fileSearch,
      codeInterpreter: opts.codeInterpreter,
    };
    // A stuck worker is terminated and started again; its run locks go with it, and the new one's
    // start-up recovery then fails the responses it left in progress.
    const own = superviseEngine({
      start: () =>
        startEngineWorker(options, {
          url: opts.workerUrl,
          remote,
          onError: (err) => (settled ? console.error(`[intab] ${err.message}`) : engineFailed(err)),
        }),
      stuckMs: opts.stuckWorkerMs,
      beforeRestart: () => runLocksReleased(navigator.locks, RUN_LOCK_DRAIN_MS),
      onRestart: () => broker?.handOver({ restarted: true }),
    });
    engine = own;
    const run: CallRunner = (call, onProgress) => own.run((api) => runCall(api, call, onProgress));
    const leaderId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    if (channel)
      serving = serveFollowers(channel, { leaderId, build, run, handPort: () => broker?.handOver() });
    broker?.handOver();
    calls?.leaderChanged(leaderId, run);
  };
  // Runs `lead` a microtask or more after this function returns, so `broker` below is set by then.
  const election = electLeader(navigator.locks, lead, { onDeposed: deposed });
  if (channel) followNewestBuild(channel, build, election);
  election.elected.catch((err: unknown) => console.error('[intab] could not start the engine:', err));
  const broker: PortBroker | null = container
    ? brokerPorts(container, {
        connect: () => engine?.current()?.connect() ?? null,
        relay: () => channel?.postMessage({ type: 'need-port' }),
        exclusive: () => election.exclusive,
      })
    : null;

  const updates = watchUpdates({ autoUpdate: opts.autoUpdate });
  const ready = Promise.race([startServiceWorker(opts, container, updates), engineFailure]);
  const done = () => {
    settled = true;
  };
  ready.then(done, done);
  // Callers that never await `ready` still see why intab did not start, without an unhandled rejection.
  ready.catch((err: unknown) => {
    console.error('[intab] not ready:', err);
    updates.fail(err);
  });
  if (opts.webSocket) installWebSocket({ ready, scope: opts.scope });

  /** Runs `call` here when this tab leads, else in the leader's tab. */
  const route = async (call: RelayedCall, onProgress?: (p: LoadProgress) => void): Promise<unknown> => {
    const onEngine = (e: SupervisedEngine) => e.run((api) => runCall(api, call, onProgress));
    if (engine) return onEngine(engine);
    if (calls) return calls.call(call, onProgress);
    // No BroadcastChannel: this tab can only serve itself, once it leads.
    await withDeadline(election.elected, ACCEPT_MS, 'The leader election').catch(() => {
      throw serviceUnavailable('This tab does not run the engine and cannot reach the tab that does.');
    });
    if (!engine) throw serviceUnavailable('The engine worker did not start.');
    return onEngine(engine as SupervisedEngine);
  };

  started = {
    ...updates.api,
    ready,
    async loadModel(modelId, onProgress) {
      await route({ method: 'loadModel', modelId, progress: Boolean(onProgress) }, onProgress);
    },
    async cancelLoad(modelId) {
      return (await route({ method: 'cancelLoad', modelId })) as boolean;
    },
    async gpuStatus() {
      return (await route({ method: 'gpuStatus' })) as GpuStatus;
    },
    async addModel(spec) {
      const resolved = spec.url ? { ...spec, url: new URL(spec.url, location.href).href } : spec;
      return (await route({ method: 'addModel', spec: resolved })) as ModelListing;
    },
    async addRemote(spec) {
      return (await route({ method: 'addRemote', spec })) as ModelListing[];
    },
    isLeader: () => election.isLeader,
  };
  return started;
}

/** The models' URLs made absolute against this page: the worker would resolve them against its script. */
function absoluteUrls(wllama: WllamaOptions | undefined): WllamaOptions | undefined {
  if (!wllama?.models) return wllama;
  return {
    ...wllama,
    models: wllama.models.map((m) => (m.url ? { ...m, url: new URL(m.url, location.href).href } : m)),
  };
}

/** The tabs' channel, or null where BroadcastChannel is missing (then every tab serves only itself). */
function openTabChannel(): (TabChannel & BroadcastChannel) | null {
  if (typeof BroadcastChannel === 'undefined') return null;
  return new BroadcastChannel(LEADER_CHANNEL) as TabChannel & BroadcastChannel;
}

async function startServiceWorker(
  opts: StartIntabOptions,
  container: ServiceWorkerContainer | undefined,
  updates: ReturnType<typeof watchUpdates>,
): Promise<void> {
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  if (!container) {
    throw new Error(
      'intab needs service workers, which this page does not have (they need https or localhost, and are off in some private modes).',
    );
  }
  const scope = opts.scope ?? '/';
  const swUrl = new URL(opts.swUrl ?? '/sw.js', location.href).href;
  // `immediate`: workbox-window otherwise waits for the load event, delaying the first install.
  const wb = new Workbox(swUrl, { scope });
  // Chromium's own message names the script and the cause (`A bad HTTP response code (404)…`).
  const registration = await wb.register({ immediate: true }).catch((err: unknown) => {
    throw new Error(
      `intab's service worker (${swUrl}) could not be registered: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  if (!registration) throw new Error(`intab's service worker (${swUrl}) could not be registered.`);
  updates.attach({ wb, registration, container });
  await waitForControl(container, registration, deadline);
  await waitForModels(new URL(scope, location.href), deadline);
}
