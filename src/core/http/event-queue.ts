/**
 * An unbounded single-reader queue, ended once. A run pushes its events here and never waits for the
 * reader: a slow page must not slow generation (the SSE body coalesces what piles up).
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

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
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
    for (;;) {
      if (this.items.length > 0) {
        const batch = this.items;
        this.items = [];
        yield batch;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((r) => {
        this.wake = r;
      });
      this.wake = null;
    }
  }
}
