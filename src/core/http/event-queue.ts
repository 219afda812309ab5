/**
 * A single-reader queue, ended once. A run pushes its events here without waiting; a producer that
 * can run far ahead of its reader (the scripted model writes thousands of tokens a millisecond; any
 * model while the page is busy) asks {@link EventQueue.room} between steps and waits while more than
 * `highWater` items are unread. Unbounded, a 100k-token answer sat here whole as event objects
 * whenever the page read slower than it was written: the worker heap per 100k tokens went 30 or
 * 42 MB by how far the page lagged (issue 43). A reader that stops reading altogether is the SSE
 * body's idle bound's to end: it aborts the run, whose wait ends on that abort (run-loop.ts).
 *
 * @example
 * const queue = new EventQueue<StreamEvent>();
 * queue.push(event);
 * queue.end();
 * for await (const e of queue) send(e);
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private ended = false;
  private wake: (() => void) | null = null;
  /** Producers waiting for the reader to take the backlog. */
  private roomWaiters: (() => void)[] = [];
  /** The reader has stopped (its iteration returned): nobody will take anything again. */
  private readerGone = false;

  /** @param highWater unread items past which {@link room} asks the producer to wait. */
  constructor(private readonly highWater = Number.POSITIVE_INFINITY) {}

  /**
   * Null while fewer than `highWater` items wait (the usual case: no promise, no turn lost), else a
   * promise that resolves once the reader takes them, or the queue ends, or the reader goes away.
   *
   * @example
   * const wait = queue.room();
   * if (wait) await wait;
   */
  room(): Promise<void> | null {
    if (this.items.length < this.highWater || this.ended || this.readerGone) return null;
    return new Promise<void>((r) => this.roomWaiters.push(r));
  }

  private releaseRoom(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const r of waiters) r();
  }

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
    this.releaseRoom();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const batch of this.batches()) yield* batch;
  }

  /**
   * The items as they were pushed between two reads, a batch at a time: what a run pushes in one
   * turn (a message's `output_item.added`, `content_part.added` and first delta) is taken together,
   * so the SSE body can send it as one chunk instead of one chunk per event. Each chunk of a
   * transferred stream waits for the reading side's acknowledgement before the next can go, so
   * three chunks cost three round trips between the workers before the first token shows.
   */
  async *batches(): AsyncGenerator<readonly T[]> {
    try {
      for (;;) {
        if (this.items.length > 0) {
          const batch = this.items;
          this.items = [];
          this.releaseRoom();
          yield batch;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((r) => {
          this.wake = r;
        });
        this.wake = null;
      }
    } finally {
      this.readerGone = true;
      this.releaseRoom();
    }
  }
}
