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
    for (;;) {
      if (this.items.length > 0) {
        const batch = this.items;
        this.items = [];
        yield* batch;
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
