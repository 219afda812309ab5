/**
 * The leading tab's watch over its engine worker (issue 27, section 5). A worker stuck in a
 * synchronous loop answers nothing, and no one else can end it: the service worker sees only a
 * late ping (and, while this tab is open, takes it for busy: see sw/engine-links.ts), and every
 * tab's requests queue behind it. So the tab that started the worker pings it, and one that has
 * not answered for `stuckMs` (since its last answer, or since its start if it never answered) is
 * terminated and started afresh: the new worker opens the same IndexedDB store, and its start-up
 * recovery (`recover()` in engine-worker.ts, the path that fails the runs of a leader whose tab
 * closed) marks the stuck worker's unfinished responses `failed`, since the browser released their
 * run locks with the terminated worker.
 *
 * The bound is generous: no request keeps the worker busy for more than a slice at a time (the
 * engine yields), so a worker silent for seconds is stuck, not busy; a false alarm would cost a
 * model reload.
 */
import type * as Comlink from 'comlink';
import { serviceUnavailable } from '../common/api-error';
import type { EngineApi } from '../worker/protocol';
import type { EngineWorkerHandle } from './engine-worker-client';

/** Default bound on an engine worker that answers no ping, before its tab replaces it. */
export const STUCK_WORKER_MS = 15_000;
/** How long after one answered ping the next is sent. */
export const WATCH_INTERVAL_MS = 1_000;
/**
 * A deadline timer that fires this much later than asked says the page itself was held up (a long
 * task, a throttled background tab): the worker's answer may be waiting behind it, so it gets one
 * more grace period of this length before the worker counts as stuck.
 */
const PAGE_LATE_MS = 1_000;
/** At most this many doublings of a silent start's bound (15 s → 8 min). */
const MAX_DOUBLINGS = 5;

/** The engine worker, replaced when it is stuck. */
export interface SupervisedEngine {
  /** The worker now running; null while a stuck one is being replaced. */
  current(): EngineWorkerHandle | null;
  /**
   * Runs `fn` on the running worker (waiting for a replacement to start first). Rejects with a
   * retryable 503 when the worker it ran on is replaced before `fn` settles: a call into a
   * terminated worker would never settle.
   */
  run<T>(fn: (api: Comlink.Remote<EngineApi>) => Promise<T>): Promise<T>;
  /** Stops watching (the worker keeps running). */
  stop(): void;
  /**
   * Stops watching and terminates the worker (this tab no longer leads): calls running on it, and
   * every later one, reject with `reason`.
   */
  end(reason: Error): void;
}

/** How to start a worker and what to do around a replacement. */
export interface SuperviseOptions {
  /** Starts a worker (the first and each replacement). */
  start: () => EngineWorkerHandle;
  /**
   * How long a ping may go unanswered before the worker counts as stuck. Default
   * {@link STUCK_WORKER_MS}; 0 turns the watch off.
   */
  stuckMs?: number;
  /** Pause between an answered ping and the next. Default {@link WATCH_INTERVAL_MS}. */
  intervalMs?: number;
  /** Awaited once the stuck worker is terminated, before its replacement starts (its run locks drain). */
  beforeRestart?: () => Promise<void>;
  /** The replacement is running: hand its ports over. */
  onRestart?: (handle: EngineWorkerHandle) => void;
}

/**
 * Starts a worker with `opts.start` and keeps it answering.
 *
 * @example
 * const engine = superviseEngine({
 *   start: () => startEngineWorker(options),
 *   beforeRestart: () => runLocksReleased(navigator.locks, 2_000),
 *   onRestart: () => broker.handOver({ restarted: true }),
 * });
 * await engine.run((api) => api.gpuStatus());
 */
export function superviseEngine(opts: SuperviseOptions): SupervisedEngine {
  const stuckMs = opts.stuckMs ?? STUCK_WORKER_MS;
  const intervalMs = opts.intervalMs ?? WATCH_INTERVAL_MS;
  let handle: EngineWorkerHandle | null = opts.start();
  let running: Promise<EngineWorkerHandle> = Promise.resolve(handle);
  /** Aborted when the worker that calls run on is replaced. */
  let generation = new AbortController();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const schedule = (): void => {
    if (!stopped && stuckMs > 0) timer = setTimeout(() => void probe(), intervalMs);
  };

  /** Whether the running worker has answered a ping yet. */
  let alive = false;
  /** Whether it reported a failure (its script did not load, or threw) before answering any. */
  let broken = false;
  /** Workers replaced in a row before they answered once: each doubles the next one's first bound. */
  let silentStarts = 0;
  const watch = (started: EngineWorkerHandle): EngineWorkerHandle => {
    started.worker.addEventListener('error', () => {
      if (started === handle && !alive) broken = true;
    });
    return started;
  };
  watch(handle);

  /**
   * Pings the worker; one silent for the bound is replaced, counted from its start as much as from
   * its last answer: a new worker whose start-up froze (a file its recovery indexed) answered no
   * first ping, and was left frozen (issue 43). Only a worker whose script failed is left alone (its
   * `error` event says why, and a new one would fail the same way). A slow first start (a script
   * still downloading) is not restarted forever: each silent start doubles the next one's bound.
   */
  const probe = async (): Promise<void> => {
    const watched = handle;
    if (!watched || stopped) return;
    const bound = alive ? stuckMs : stuckMs * 2 ** Math.min(silentStarts, MAX_DOUBLINGS);
    const answered = await answersWithin(watched.api.ping(), bound);
    if (stopped || watched !== handle) return;
    if (answered) {
      alive = true;
      silentStarts = 0;
    } else if (!broken) {
      if (!alive) silentStarts++;
      await replace(watched, bound, alive);
    }
    schedule();
  };

  const replace = async (stuck: EngineWorkerHandle, bound: number, answeredOnce: boolean): Promise<void> => {
    handle = null;
    alive = false;
    broken = false;
    stuck.worker.terminate();
    const silent = answeredOnce
      ? `stopped answering for ${bound} ms`
      : `answered nothing within ${bound} ms of its start`;
    console.warn(`[intab] the engine worker ${silent}; restarting it.`);
    generation.abort(serviceUnavailable(`The engine worker ${silent} and was restarted; try again.`));
    generation = new AbortController();
    let started: (h: EngineWorkerHandle) => void = () => {};
    running = new Promise((resolve) => {
      started = resolve;
    });
    await opts.beforeRestart?.().catch(() => {});
    if (stopped) return;
    handle = watch(opts.start());
    started(handle);
    opts.onRestart?.(handle);
  };

  schedule();
  return {
    current: () => handle,
    async run(fn) {
      const on = await running;
      const { signal } = generation;
      if (signal.aborted) throw signal.reason;
      let onAbort = (): void => {};
      const replaced = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        return await Promise.race([fn(on.api), replaced]);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    end(reason) {
      stopped = true;
      clearTimeout(timer);
      handle?.worker.terminate();
      handle = null;
      generation.abort(reason);
    },
  };
}

/**
 * Whether `promise` settles (either way: a rejection is an answer too) within `ms`. A deadline timer
 * that fires late means the page was held up, so the answer gets {@link PAGE_LATE_MS} more.
 */
async function answersWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answered = promise.then(
    () => true,
    () => true,
  );
  const wait = (after: number): Promise<false> =>
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), after);
    });
  try {
    const armed = performance.now();
    if (await Promise.race([answered, wait(ms)])) return true;
    if (performance.now() - armed < ms + PAGE_LATE_MS) return false;
    return await Promise.race([answered, wait(PAGE_LATE_MS)]);
  } finally {
    clearTimeout(timer);
  }
}
