import type { IDBPDatabase } from 'idb';
import type { IntabDB, IntabStoreName, IntabTx } from './idb-types';
import { storageClosed, toStorageError } from './storage-error';

/** Why the connection is gone, once it is; set by close() or by the database's own events. */
export interface ConnectionState {
  closedReason?: string;
}

const noop = () => {};

/**
 * Runs each unit of work in one transaction on a shared connection, the one place that turns
 * IndexedDB failures into ApiErrors. The response and conversation halves of IdbStore both use it.
 *
 * @example
 * const runner = new TxRunner(db, state);
 * await runner.run(['events'], 'readwrite', 'relaxed', (tx) => { quiet(tx.objectStore('events').put(e, key)); });
 */
export class TxRunner {
  constructor(
    private readonly db: IDBPDatabase<IntabDB>,
    private readonly state: ConnectionState,
  ) {}

  /**
   * Runs `work` in one transaction and resolves once it has committed. `work` may await only IDB
   * requests of `tx`: awaiting anything else lets the transaction auto-commit midway. On any failure
   * the transaction is aborted (a synchronous throw from `put` does not abort it by itself) and the
   * error becomes an ApiError. The transaction's own error wins over a request's AbortError, because
   * that is where browsers report QuotaExceededError.
   */
  async run<S extends IntabStoreName[], M extends IDBTransactionMode, T>(
    stores: [...S],
    mode: M,
    durability: IDBTransactionDurability,
    work: (tx: IntabTx<S, M>) => T | Promise<T>,
  ): Promise<T> {
    if (this.state.closedReason) throw storageClosed(this.state.closedReason);
    let tx: IntabTx<S, M>;
    try {
      tx = this.db.transaction(stores, mode, { durability });
    } catch (err) {
      throw this.state.closedReason ? storageClosed(this.state.closedReason) : toStorageError(err);
    }
    const done = tx.done;
    done.catch(noop); // observed below; this only keeps an early abort from being "unhandled"
    try {
      const result = await work(tx);
      await done;
      return result;
    } catch (err) {
      try {
        tx.abort();
      } catch {
        // Already finished or aborted: nothing left to roll back.
      }
      await done.catch(noop);
      const error = toStorageError(tx.error ?? err);
      if (error.code === 'storage_quota_exceeded') await this.releaseAborted(stores[0]);
      throw error;
    }
  }

  /**
   * After a write overflowed the quota, Chromium goes on counting the bytes that write put on disk
   * (megabytes, for a big record) until another transaction commits. Until then, every write is
   * refused, even the few kilobytes that mark the response `failed`. A commit that adds nothing
   * (deleting a key no record has) needs no quota, and lets the count drop back.
   */
  private async releaseAborted(store: IntabStoreName | undefined): Promise<void> {
    if (!store || this.state.closedReason) return;
    try {
      const tx = this.db.transaction(store, 'readwrite');
      quiet(tx.objectStore(store).delete(NO_SUCH_KEY));
      await tx.done;
    } catch {
      // Nothing to release, or no connection left: the caller's error says what matters.
    }
  }
}

/** A key no store holds: every store's keys are ids (`resp_…`) or arrays starting with one. */
const NO_SUCH_KEY = '';

/**
 * Write requests are checked through `tx.done`; this keeps their own rejections from going unhandled.
 *
 * @example
 * quiet(tx.objectStore('responses').put(record));
 */
export function quiet(request: Promise<unknown>): void {
  request.catch(noop);
}

/**
 * All keys `[ownerId, n]` of one owner in a store keyed that way (`events`, `conversation_items`).
 *
 * @example
 * quiet(tx.objectStore('events').delete(ownerRange('resp_1')));
 */
export function ownerRange(ownerId: string): IDBKeyRange {
  return IDBKeyRange.bound([ownerId, -Infinity], [ownerId, Infinity]);
}

/**
 * Keys below `key` (never `key` itself), as a range bounded on both sides. WebKit's in-memory
 * IndexedDB (Safari's Private Browsing, WebDriver sessions) answers a half-open `upperBound` with the
 * records that have no key in the index (`expiresAt: null`) too: the expiry sweep deleted every
 * response stored without an expiry at the next start (issue 42). A lower bound below every key of
 * the index's type keeps those out in every browser (for array keys, `[-∞]`
 * sorts before every `[number, …]` key).
 *
 * @example
 * store.index('by_expiry').getAllKeys(keysBelow(Date.now()));
 * store.index('by_created').openCursor(keysBelow([createdAt, id]), 'prev');
 */
export function keysBelow(key: number | [number, string]): IDBKeyRange {
  return IDBKeyRange.bound(typeof key === 'number' ? -Infinity : [-Infinity], key, false, true);
}

/**
 * Keys above `key` (never `key` itself), bounded on both sides for the same reason as
 * {@link keysBelow}: `[Infinity, []]` sorts after every `[number, string]` key.
 *
 * @example
 * store.index('by_created').openCursor(keysAbove([createdAt, id]), 'next');
 */
export function keysAbove(key: [number, string]): IDBKeyRange {
  return IDBKeyRange.bound(key, [Infinity, []], true, false);
}

/** Records removed per sweep transaction, so a long sweep never holds the stores for long. */
export const SWEEP_BATCH = 50;

/** The part of an object store a sweep uses: both swept stores have these two indexes. */
export interface SweepableStore {
  count(): Promise<number>;
  index(name: 'by_expiry' | 'by_created'): {
    getAllKeys(query: IDBKeyRange | null, count?: number): Promise<IDBValidKey[]>;
  };
}

/**
 * The sweep both halves of IdbStore run: first every entry expired by `now`, then the oldest ones
 * beyond `max`, a batch per transaction so requests run in between. `deleteBatch` picks the keys
 * in its own transaction and deletes them there, with whatever belongs to them.
 *
 * @example
 * await sweepStore((pick) => this.deleteBatch((tx) => pick(tx.objectStore('responses'))), now, 1000);
 */
export async function sweepStore(
  deleteBatch: (pick: (store: SweepableStore) => Promise<string[]>) => Promise<number>,
  now: number,
  max: number | null,
): Promise<{ expired: number; trimmed: number }> {
  const result = { expired: 0, trimmed: 0 };
  for (;;) {
    const n = await deleteBatch(
      async (store) => (await store.index('by_expiry').getAllKeys(keysBelow(now), SWEEP_BATCH)) as string[],
    );
    result.expired += n;
    if (n < SWEEP_BATCH) break;
  }
  if (max === null) return result;
  for (;;) {
    const n = await deleteBatch(async (store) => {
      const excess = (await store.count()) - max;
      if (excess <= 0) return [];
      return (await store.index('by_created').getAllKeys(null, Math.min(excess, SWEEP_BATCH))) as string[];
    });
    result.trimmed += n;
    if (n === 0) break;
  }
  return result;
}
