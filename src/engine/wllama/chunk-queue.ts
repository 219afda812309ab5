/**
 * Chunks pushed by a callback, read with a bounded wait. wllama streams through an `onData`
 * callback from its own polling loop; reading through this queue lets the engine notice silence (a
 * hung or dead llama.cpp worker never calls back) and abortion without waiting on wllama.
 */

/** What one bounded read gives. */
export type QueueStep<T> =
  | { kind: 'item'; value: T }
  | { kind: 'end' }
  | { kind: 'error'; error: unknown }
  | { kind: 'aborted' }
  | { kind: 'timeout' };

/**
 * @example
 * const q = new ChunkQueue<Chunk>();
 * run({ onData: (c) => q.push(c) }).then(() => q.end(), (e) => q.fail(e));
 * for (let s = await q.next(60_000, signal); s.kind === 'item'; s = await q.next(60_000, signal)) use(s.value);
 */
export class ChunkQueue<T> {
  private readonly items: T[] = [];
  private finished: { kind: 'end' } | { kind: 'error'; error: unknown } | null = null;
  private wake: (() => void) | null = null;
  /** Items pushed since {@link markAbort}, i.e. produced after the reader gave up. */
  private afterAbort: number | null = null;

  push(value: T): void {
    if (this.afterAbort !== null) this.afterAbort++;
    this.items.push(value);
    this.wake?.();
  }

  end(): void {
    this.finished ??= { kind: 'end' };
    this.wake?.();
  }

  fail(error: unknown): void {
    this.finished ??= { kind: 'error', error };
    this.wake?.();
  }

  /** Starts counting what arrives from now on (see {@link pushedAfterAbort}). */
  markAbort(): void {
    this.afterAbort ??= 0;
  }

  /** Items pushed after {@link markAbort}; 0 before it. */
  get pushedAfterAbort(): number {
    return this.afterAbort ?? 0;
  }

  /** Whether the producer has finished (ended or failed). */
  get settled(): boolean {
    return this.finished !== null;
  }

  /**
   * The next item, or how the stream ended, or `timeout` when nothing came within `ms`, or
   * `aborted` once `signal` aborts. Items already queued are returned before an end or an abort.
   */
  async next(ms: number, signal?: AbortSignal): Promise<QueueStep<T>> {
    for (;;) {
      if (signal?.aborted) return { kind: 'aborted' };
      if (this.items.length > 0) return { kind: 'item', value: this.items.shift() as T };
      if (this.finished) return this.finished;
      const woke = await this.wait(ms, signal);
      if (!woke) return { kind: 'timeout' };
    }
  }

  /** Resolves true when something happens, false after `ms` of silence. */
  private wait(ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (woke: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.wake = null;
        resolve(woke);
      };
      const onAbort = () => done(true);
      this.wake = () => done(true);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (Number.isFinite(ms) && ms > 0) timer = setTimeout(() => done(false), ms);
    });
  }
}

/** Thrown by {@link withTimeout} when the work did not settle in time. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * `work`, or a {@link TimeoutError} naming `what` after `ms`. The work is not cancelled (the caller
 * decides, e.g. by discarding the llama.cpp instance).
 *
 * @example
 * await withTimeout(wllama.createEmbedding({ input }), 30_000, 'llama.cpp embedding');
 */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError(`${what} did not answer within ${ms} ms.`)), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
