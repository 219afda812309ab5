/**
 * Concurrency helpers for the web-llm engine: one GPU job at a time, and timeouts that fire on
 * silence rather than on total duration.
 */

/**
 * A FIFO mutex whose waiters can give up. web-llm's `interruptGenerate()` stops whatever generation
 * is running, not a given one, so the engine lets only one job (load or generation) reach web-llm at
 * a time; then an interrupt always hits the caller's own generation.
 *
 * @example
 * const release = await gate.acquire(signal);
 * if (!release) return; // aborted while waiting
 * try { … } finally { release(); }
 */
export class Gate {
  private tail: Promise<void> = Promise.resolve();
  /** How long a turn lasts, on average (an exponential moving average; a guess before the first). */
  private turnMs = 1_000;

  /** About how long until the current turn ends: what a caller refused for a full queue should wait. */
  get averageTurnMs(): number {
    return this.turnMs;
  }

  /** Resolves with a release function once it is this caller's turn, or null if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<(() => void) | null> {
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
}

/** Thrown by {@link withStallTimeout} when no progress came in time. */
export class StallTimeoutError extends Error {
  override readonly name = 'StallTimeoutError';
}

/**
 * Races `work` against a timer that restarts whenever `bump` is called. Model downloads take
 * minutes on slow links, so a total deadline would fail healthy loads; a stall means no progress
 * report for `ms`. `ms <= 0` or Infinity disables the timer.
 *
 * @example
 * await withStallTimeout((bump) => { mlc.setInitProgressCallback(bump); return mlc.reload(id); }, 60_000);
 */
export function withStallTimeout<T>(work: (bump: () => void) => Promise<T>, ms: number): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return work(() => {});
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
    };
    const arm = () => {
      if (settled) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        settle();
        reject(new StallTimeoutError(`No progress for ${ms} ms.`));
      }, ms);
    };
    arm();
    work(arm).then(
      (v) => {
        settle();
        resolve(v);
      },
      (e: unknown) => {
        settle();
        reject(e);
      },
    );
  });
}

/** What a {@link deadline} resolves with once it has passed. */
export const EXPIRED = Symbol('expired');

/**
 * A timer as a promise, for racing one step of work: `expired` resolves with {@link EXPIRED} after
 * `ms` (never, for `ms <= 0` or Infinity), unless `clear()` came first.
 *
 * @example
 * const limit = deadline(60_000);
 * const step = await Promise.race([stream.next(), limit.expired]);
 * limit.clear();
 * if (step === EXPIRED) throw stalled();
 */
export function deadline(ms: number): { expired: Promise<typeof EXPIRED>; clear(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof EXPIRED>((resolve) => {
    if (ms > 0 && Number.isFinite(ms)) timer = setTimeout(() => resolve(EXPIRED), ms);
  });
  return { expired, clear: () => clearTimeout(timer) };
}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
