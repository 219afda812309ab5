/** How many `store: false` responses a connection keeps for continuation, by default. */
export const DEFAULT_SOCKET_CACHED_RESPONSES = 16;

/**
 * A connection's own memory of its recent `store: false` responses: for each, the items a
 * continuation carries in (its input, history included, then its output). Nothing here outlives the
 * socket, and no other connection sees it, which is what `store: false` promises. Oldest first out
 * past `max` entries.
 *
 * @example
 * cache.keep('resp_1', [...input, ...response.output]);
 * cache.history('resp_1'); // → those items, or undefined
 */
export class ConnectionCache<T> {
  readonly #entries = new Map<string, T>();

  constructor(readonly max = DEFAULT_SOCKET_CACHED_RESPONSES) {}

  history(id: string): T | undefined {
    return this.#entries.get(id);
  }

  keep(id: string, value: T): void {
    this.#entries.delete(id);
    this.#entries.set(id, value);
    // A Map iterates in insertion order: its first key is the oldest entry.
    while (this.#entries.size > this.max) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  evict(id: string): void {
    this.#entries.delete(id);
  }

  clear(): void {
    this.#entries.clear();
  }
}
