/**
 * Follower ⇄ leader traffic on the tabs' BroadcastChannel. A BroadcastChannel carries no
 * MessagePorts (ports are not serializable, only transferable), so a follower cannot be given a port
 * into the leader's engine worker. Instead:
 * - the service worker's `need-port`, which reaches whichever tab made the request, is relayed to the
 *   leader, and the leader posts a fresh port to the service worker itself;
 * - the page API (`loadModel`, `gpuStatus`) is a tiny request/response protocol: `call`, `accepted`,
 *   `progress`*, `result`. Every wait is bounded, or ends when the leader that took the call is
 *   replaced (its tab closed mid-call).
 */
import * as Comlink from 'comlink';
import { serviceUnavailable, toApiError, toApiErrorData } from '../common/api-error';
import type { LoadProgress } from '../engine/types';
import { withDeadline } from '../worker/deadline';
import {
  type EngineApi,
  isMessage,
  type RelayedCall,
  type TabBuild,
  type TabMessage,
} from '../worker/protocol';

/** The part of a BroadcastChannel used here (Node's has the same shape, for unit tests). */
export interface TabChannel {
  postMessage(message: TabMessage): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

/** How long the leader may take to acknowledge a call (a live tab answers in milliseconds). */
export const ACCEPT_MS = 3_000;
/** Bound on `gpuStatus`, the same as the leader's own call gets. */
export const GPU_STATUS_MS = 10_000;

/** Bound on `addRemote`: the worker's own bound on listing the server's models, plus slack. */
const ADD_REMOTE_MS = 15_000;

/**
 * Runs one call on the local engine worker. `loadModel` has no bound: a download of GBs of weights
 * takes as long as it takes, and a dead worker's tab is noticed through the election instead.
 *
 * @example
 * await runCall(engine.api, { method: 'gpuStatus' });
 */
export async function runCall(
  api: Comlink.Remote<EngineApi>,
  call: RelayedCall,
  onProgress?: (p: LoadProgress) => void,
): Promise<unknown> {
  try {
    if (call.method === 'gpuStatus')
      return await withDeadline(api.gpuStatus(), GPU_STATUS_MS, 'The engine worker');
    if (call.method === 'addModel')
      return await withDeadline(api.addModel(call.spec), GPU_STATUS_MS, 'The engine worker');
    // Listing a server's models is itself bounded (REMOTE_MODEL_LIST_MS) inside the worker.
    if (call.method === 'addRemote')
      return await withDeadline(api.addRemote(call.spec), ADD_REMOTE_MS, 'The engine worker');
    if (call.method === 'cancelLoad')
      return await withDeadline(api.cancelLoad(call.modelId), GPU_STATUS_MS, 'The engine worker');
    return await api.loadModel(call.modelId, onProgress ? Comlink.proxy(onProgress) : undefined);
  } catch (err) {
    throw toApiError(err);
  }
}

/** Runs one relayed call on whichever engine worker this tab runs now. */
export type CallRunner = (call: RelayedCall, onProgress?: (p: LoadProgress) => void) => Promise<unknown>;

/**
 * Leader side: announces this tab (with its `build`, on `who-leads` too), hands the service worker a
 * port on a relayed `need-port`, and runs followers' calls on the engine worker: `api`'s, or through
 * `run`, which follows the worker across a restart (see engine-supervisor.ts). `stop()`: this tab
 * no longer leads (a tab of a newer build took over), and answers nothing more.
 *
 * @example
 * serveFollowers(channel, { leaderId: crypto.randomUUID(), api: engine.api, handPort: () => broker.handOver() });
 */
export function serveFollowers(
  channel: TabChannel,
  opts: { leaderId: string; handPort: () => void; build?: TabBuild } & (
    | { api: Comlink.Remote<EngineApi> }
    | { run: CallRunner }
  ),
): { stop(): void } {
  const run: CallRunner =
    'run' in opts ? opts.run : (call, onProgress) => runCall(opts.api, call, onProgress);
  const post = (message: TabMessage): void => channel.postMessage(message);
  // A follower re-sends a call it has no acceptance for when a leader announces; run each once.
  const seen = new Set<string>();
  let stopped = false;
  const announce = (): void => post({ type: 'leader', leaderId: opts.leaderId, ...opts.build });
  channel.addEventListener('message', (event) => {
    const data: unknown = event.data;
    if (stopped) return;
    if (isMessage<TabMessage>(data, 'need-port')) opts.handPort();
    else if (isMessage<TabMessage>(data, 'who-leads')) announce();
    else if (isMessage<Extract<TabMessage, { type: 'call' }>>(data, 'call')) {
      const { callId, call } = data;
      if (seen.has(callId)) return;
      seen.add(callId);
      post({ type: 'accepted', callId, leaderId: opts.leaderId });
      const onProgress =
        call.method === 'loadModel' && call.progress
          ? (progress: LoadProgress) => post({ type: 'progress', callId, progress })
          : undefined;
      run(call, onProgress).then(
        (value) => post({ type: 'result', callId, ok: true, value }),
        (err: unknown) => post({ type: 'result', callId, ok: false, error: toApiErrorData(err) }),
      );
    }
  });
  announce();
  return {
    stop() {
      stopped = true;
    },
  };
}

interface Pending {
  call: RelayedCall;
  onProgress?: (p: LoadProgress) => void;
  /** The leader that accepted the call; null until one does. */
  leaderId: string | null;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  acceptTimer?: ReturnType<typeof setTimeout>;
}

/**
 * Follower side: sends calls to whichever tab leads, and settles each one with the leader's
 * `result`, or with a 503 when no leader accepts it in time or the leader that accepted it is gone.
 *
 * @example
 * const calls = new LeaderCalls(channel);
 * const status = await calls.call({ method: 'gpuStatus' });
 */
export class LeaderCalls {
  readonly #pending = new Map<string, Pending>();
  #seq = 0;
  readonly #tab = Math.random().toString(36).slice(2, 10);

  constructor(
    private readonly channel: TabChannel,
    private readonly acceptMs = ACCEPT_MS,
  ) {
    channel.addEventListener('message', (event) => this.#onMessage(event.data));
  }

  /** Sends `call` to the leader; rejects with a 503 `ApiError` when no leader takes it within the bound. */
  call(call: RelayedCall, onProgress?: (p: LoadProgress) => void): Promise<unknown> {
    const callId = `${this.#tab}-${++this.#seq}`;
    const settled = new Promise<unknown>((resolve, reject) => {
      this.#pending.set(callId, { call, onProgress, leaderId: null, resolve, reject });
    });
    this.#send(callId);
    const bounded =
      call.method !== 'loadModel' ? withDeadline(settled, GPU_STATUS_MS, 'The leading tab') : settled;
    return bounded.catch((err: unknown) => {
      this.#pending.delete(callId);
      throw toApiError(err);
    });
  }

  /**
   * A new leader exists (another tab announced, or this tab won and runs calls with `local`). Calls
   * it has not seen are sent again (a BroadcastChannel does not queue for listeners that came later);
   * calls an earlier leader accepted died with it.
   */
  leaderChanged(
    leaderId: string,
    local?: (call: RelayedCall, onProgress?: (p: LoadProgress) => void) => Promise<unknown>,
  ): void {
    for (const [callId, p] of this.#pending) {
      if (p.leaderId === leaderId) continue;
      if (p.leaderId !== null) {
        this.#settle(callId, () =>
          p.reject(serviceUnavailable('The tab that hosted the engine closed during this call; try again.')),
        );
      } else if (local) {
        this.#settle(callId, () => local(p.call, p.onProgress).then(p.resolve, p.reject));
      } else {
        this.#send(callId);
      }
    }
  }

  #send(callId: string): void {
    const p = this.#pending.get(callId);
    if (!p) return;
    clearTimeout(p.acceptTimer);
    p.acceptTimer = setTimeout(() => {
      this.#settle(callId, () =>
        p.reject(
          serviceUnavailable(
            `No tab running the engine answered within ${this.acceptMs} ms; reload the page.`,
          ),
        ),
      );
    }, this.acceptMs);
    this.channel.postMessage({ type: 'call', callId, call: p.call });
  }

  #settle(callId: string, fn: () => void): void {
    const p = this.#pending.get(callId);
    if (!p) return;
    clearTimeout(p.acceptTimer);
    this.#pending.delete(callId);
    fn();
  }

  #onMessage(data: unknown): void {
    if (isMessage<Extract<TabMessage, { type: 'leader' }>>(data, 'leader')) {
      this.leaderChanged(data.leaderId);
      return;
    }
    const callId = (data as { callId?: unknown } | null)?.callId;
    const p = typeof callId === 'string' ? this.#pending.get(callId) : undefined;
    if (!p || typeof callId !== 'string') return;
    if (isMessage<Extract<TabMessage, { type: 'accepted' }>>(data, 'accepted')) {
      clearTimeout(p.acceptTimer);
      p.leaderId = data.leaderId;
    } else if (isMessage<Extract<TabMessage, { type: 'progress' }>>(data, 'progress')) {
      p.onProgress?.(data.progress);
    } else if (isMessage<Extract<TabMessage, { type: 'result' }>>(data, 'result')) {
      this.#settle(callId, () => (data.ok ? p.resolve(data.value) : p.reject(data.error)));
    }
  }
}
