/**
 * Turns at an engine that serves one job at a time (web-llm's GPU, a llama.cpp instance): a FIFO
 * gate whose waiters can give up, and the bound on the requests waiting for it. Without the bound a
 * burst of requests would queue for minutes, past every bound of the service worker: past `max`
 * waiters a new request is OpenAI's 429 `rate_limit_exceeded`.
 */
import { rateLimited } from '../common/api-error';

/** Requests that may wait for an engine at once, by default. */
export const DEFAULT_MAX_QUEUE = 16;

/** What a turn yields: its release, or null when the caller's signal aborted the wait. */
export type Release = () => void;

/**
 * One job at a time through `acquire` (a FIFO mutex whose waiters can give up: web-llm's
 * `interruptGenerate()` stops whatever generation runs, not a given one, so only one job may reach
 * it at a time, and then an interrupt always hits the caller's own), and a count of the callers
 * waiting (for their turn, or for their model's load), refused past `max`.
 *
 * @example
 * const turns = new Turns(16, 'llama.cpp runs one request at a time');
 * turns.refuseWhenFull('tiny');
 * const release = await turns.awaitTurn(signal);
 * if (!release) return; // aborted while waiting
 * try { … } finally { release(); }
 */
export class Turns {
  /** Callers waiting now. */
  waiting = 0;
  readonly max: number;
  private tail: Promise<void> = Promise.resolve();
  /** How long a turn lasts, on average (an exponential moving average; a guess before the first). */
  private turnMs = 1_000;

  /**
   * `max` below 1 counts as 1: a queue that takes no one would refuse every request. `why`, when
   * given, says in the 429's message why requests wait (the engine's one-at-a-time).
   */
  constructor(
    max: number = DEFAULT_MAX_QUEUE,
    private readonly why = '',
  ) {
    this.max = Math.max(1, Math.floor(max));
  }

  /** About how long until the current turn ends: what a caller refused for a full queue should wait. */
  get averageTurnMs(): number {
    return this.turnMs;
  }

  /**
   * Resolves with a release function once it is this caller's turn, or null if `signal` aborts
   * first. Not counted as waiting: {@link awaitTurn} is, and so is what {@link queued} wraps.
   */
  acquire(signal?: AbortSignal): Promise<Release | null> {
    let free!: () => void;
    const mine = new Promise<void>((r) => {
      free = r;
    });
    let since = 0;
    const release = (): void => {
      if (since) this.turnMs = 0.7 * this.turnMs + 0.3 * (Date.now() - since);
      free();
    };
    const prev = this.tail;
    this.tail = prev.then(() => mine);
    return new Promise((resolve) => {
      const onAbort = () => {
        // Keep the queue's order: our slot passes straight through when its turn comes.
        void prev.then(release);
        resolve(null);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      void prev.then(() => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) return;
        since = Date.now();
        resolve(once(release));
      });
    });
  }

  /** This caller's turn ({@link acquire}), counted as waiting until it comes. */
  awaitTurn(signal?: AbortSignal): Promise<Release | null> {
    return this.queued(this.acquire(signal));
  }

  /** Counts the caller as waiting until `wait` settles (a turn, or a model's load). */
  async queued<T>(wait: Promise<T>): Promise<T> {
    this.waiting++;
    try {
      return await wait;
    } finally {
      this.waiting--;
    }
  }

  /**
   * Throws the 429 when `max` callers already wait; the average turn becomes its `retry-after`.
   */
  refuseWhenFull(modelId: string): void {
    if (this.waiting < this.max) return;
    const turnMs = this.turnMs;
    throw rateLimited(
      `Rate limit reached for ${modelId} on queued requests: Limit ${this.max}, Used ${this.waiting}, Requested 1. ${this.why ? `${this.why}; please` : 'Please'} try again in ${Math.max(1, Math.ceil(turnMs / 1000))}s.`,
      turnMs,
    );
  }
}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
