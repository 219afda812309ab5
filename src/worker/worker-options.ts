/** Store limits a page can set for the engine worker (see `openIdbStore`). */
export interface StoreOptions {
  ttlMs?: number | null;
  maxResponses?: number | null;
  maxConversations?: number | null;
}

const PREFIX = 'intab-engine';

/**
 * The worker's `name`: its options travel in it because the worker opens its store at start-up,
 * before any message could arrive.
 *
 * @example
 * new Worker(url, { type: 'module', name: engineWorkerName({ ttlMs: 86_400_000 }) });
 */
export function engineWorkerName(store: StoreOptions): string {
  return Object.keys(store).length === 0 ? PREFIX : `${PREFIX} ${JSON.stringify({ store })}`;
}

/**
 * Reads the options back from `self.name`; anything malformed means defaults.
 *
 * @example
 * const { store } = workerOptions(self.name); // → { store: { ttlMs: 86400000 } }
 */
export function workerOptions(name: string): { store: StoreOptions } {
  const json = name.startsWith(`${PREFIX} `) ? name.slice(PREFIX.length + 1) : '';
  try {
    const parsed = json ? (JSON.parse(json) as { store?: unknown }) : {};
    const store = parsed.store;
    if (typeof store !== 'object' || store === null) return { store: {} };
    const pick = (v: unknown) => (typeof v === 'number' && v > 0 ? v : v === null ? null : undefined);
    const s = store as Record<string, unknown>;
    return {
      store: {
        ttlMs: pick(s.ttlMs),
        maxResponses: pick(s.maxResponses),
        maxConversations: pick(s.maxConversations),
      },
    };
  } catch {
    return { store: {} };
  }
}
