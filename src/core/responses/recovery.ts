import type { ResponseStore } from '../../store/types';

/**
 * Tells which responses have a live runner anywhere in the origin. In the browser this is Web Locks
 * (a lock per running response, released by the browser when its tab dies); tests inject their own.
 *
 * @example
 * const locks: RunLocks = { hold: (id, until) => navigator.locks.request(`intab:run:${id}`, () => until), held: async () => new Set() };
 */
export interface RunLocks {
  /** Holds `id`'s lock until `until` settles. */
  hold(id: string, until: Promise<unknown>): void;
  /** Ids whose lock is held right now, by any tab. */
  held(): Promise<Set<string>>;
}

/**
 * Marks `failed` every stored response still `queued`/`in_progress` whose runner is gone (its tab
 * closed or crashed mid-run), so none stays in progress forever. Resolves with how many it marked.
 *
 * @example
 * await failInterrupted(store, locks, Date.now);
 */
export async function failInterrupted(store: ResponseStore, locks: RunLocks | undefined): Promise<number> {
  const held = locks ? await locks.held() : new Set<string>();
  let marked = 0;
  for (const record of await store.listUnfinished()) {
    if (held.has(record.response.id)) continue;
    const response = {
      ...record.response,
      status: 'failed' as const,
      error: {
        code: 'server_error' as const,
        message: 'The tab that was running this response closed before it finished.',
      },
    };
    await store.putResponse({ ...record, response }, { durable: true });
    marked++;
  }
  return marked;
}
