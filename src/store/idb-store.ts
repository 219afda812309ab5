import type { IDBPDatabase } from 'idb';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { isExpired, type ResolvedLimits, resolveLimits, withExpiry } from './expiry';
import { DB_NAME, type IntabDB, type IntabStoreName, type IntabTx, openDatabase } from './idb-schema';
import { storageClosed, toStorageError } from './storage-error';
import type { ResponseStore, StoredResponse, StoreLimits, SweepResult } from './types';

/** Options of {@link openIdbStore}. */
export interface IdbStoreOptions extends StoreLimits {
  /** Database name; defaults to `intab`. */
  name?: string;
  /** Factory to open it on; defaults to the global `indexedDB` (tests pass fake-indexeddb's). */
  indexedDB?: IDBFactory;
}

/** Responses removed per sweep transaction, so a long sweep never holds the stores for long. */
const SWEEP_BATCH = 50;
const noop = () => {};

/**
 * Opens (creating or migrating as needed) the IndexedDB store.
 *
 * @example
 * const store = await openIdbStore({ ttlMs: 30 * 86_400_000, maxResponses: 1000 });
 * await store.putResponse(record, { durable: true });
 */
export async function openIdbStore(opts: IdbStoreOptions = {}): Promise<IdbStore> {
  const limits = resolveLimits(opts);
  const factory = opts.indexedDB ?? globalThis.indexedDB;
  if (!factory) throw storageClosed('IndexedDB is not available in this context');
  // Shared with the store: the connection can be closed under us (another tab upgrading) at any time.
  const state: ConnectionState = {};
  const db = await openDatabase({
    factory,
    name: opts.name ?? DB_NAME,
    onClosed: (reason) => {
      state.closedReason ??= reason;
    },
  });
  return new IdbStore(db, limits, state);
}

/** Why the connection is gone, once it is; set by close() or by the database's own events. */
interface ConnectionState {
  closedReason?: string;
}

/**
 * {@link ResponseStore} on IndexedDB. Each method is its own short transaction that awaits only IDB
 * requests (awaiting anything else lets the transaction auto-commit midway). Every failure rejects
 * with an ApiError; a failed write aborts its transaction, so earlier data stays as it was.
 *
 * @example
 * const store = await openIdbStore();
 * await store.appendEvents('resp_1', events); // one transaction for the whole batch
 * const tail = await store.readEvents('resp_1', 41);
 */
export class IdbStore implements ResponseStore {
  /** Prefer {@link openIdbStore}, which opens and migrates the database first. */
  constructor(
    private readonly db: IDBPDatabase<IntabDB>,
    private readonly limits: ResolvedLimits = resolveLimits(),
    private readonly state: ConnectionState = {},
  ) {}

  async putResponse(record: StoredResponse, opts: { durable?: boolean } = {}): Promise<void> {
    const value = withExpiry(record, this.limits);
    // Intermediate snapshots are superseded by the final write, so only that one pays for a flush.
    const durability = opts.durable ? 'strict' : 'relaxed';
    await this.run(['responses'], 'readwrite', durability, (tx) => {
      quiet(tx.objectStore('responses').put(value));
    });
  }

  async getResponse(id: string): Promise<StoredResponse | undefined> {
    const record = await this.run(['responses'], 'readonly', 'default', (tx) =>
      tx.objectStore('responses').get(id),
    );
    return record && !isExpired(record, this.limits.now()) ? record : undefined;
  }

  async deleteResponse(id: string): Promise<boolean> {
    return this.run(['responses', 'events'], 'readwrite', 'default', async (tx) => {
      const responses = tx.objectStore('responses');
      const existing = await responses.get(id);
      quiet(responses.delete(id));
      quiet(tx.objectStore('events').delete(eventRange(id)));
      // An expired record is already gone as far as clients can tell (GET says 404), so say so here too.
      return existing !== undefined && !isExpired(existing, this.limits.now());
    });
  }

  async appendEvents(responseId: string, events: ResponseStreamEvent[]): Promise<void> {
    if (events.length === 0) return;
    // Events are replayable from the final response record, so a lost tail on crash is acceptable.
    await this.run(['events'], 'readwrite', 'relaxed', (tx) => {
      const store = tx.objectStore('events');
      for (const event of events) quiet(store.put(event, [responseId, event.sequence_number]));
    });
  }

  async readEvents(responseId: string, startingAfter?: number): Promise<ResponseStreamEvent[]> {
    const range =
      startingAfter === undefined
        ? eventRange(responseId)
        : IDBKeyRange.bound([responseId, startingAfter], [responseId, Infinity], true, false);
    return this.run(['events'], 'readonly', 'default', (tx) => tx.objectStore('events').getAll(range));
  }

  /**
   * Deletes expired responses, then the oldest ones beyond `maxResponses`, with their events. Works in
   * batches of short transactions so requests interleave with a long sweep instead of queueing behind it.
   *
   * @example
   * void store.sweep().catch(() => {}); // opportunistic, off the request path
   */
  async sweep(): Promise<SweepResult> {
    const result: SweepResult = { expired: 0, trimmed: 0 };
    const now = this.limits.now();
    for (;;) {
      const n = await this.deleteBatch((tx) =>
        tx
          .objectStore('responses')
          .index('by_expiry')
          .getAllKeys(IDBKeyRange.upperBound(now, true), SWEEP_BATCH),
      );
      result.expired += n;
      if (n < SWEEP_BATCH) break;
    }
    const max = this.limits.maxResponses;
    if (max === null) return result;
    for (;;) {
      const n = await this.deleteBatch(async (tx) => {
        const store = tx.objectStore('responses');
        const excess = (await store.count()) - max;
        if (excess <= 0) return [];
        return store.index('by_created').getAllKeys(null, Math.min(excess, SWEEP_BATCH));
      });
      result.trimmed += n;
      if (n === 0) break;
    }
    return result;
  }

  /** Releases the connection; later calls reject with a 503 ApiError. */
  close(): void {
    this.state.closedReason ??= 'the store was closed';
    this.db.close();
  }

  /** One sweep step: selects up to a batch of response ids and deletes them with their events. */
  private deleteBatch(
    select: (tx: IntabTx<['responses', 'events'], 'readwrite'>) => Promise<string[]>,
  ): Promise<number> {
    // Relaxed: a sweep lost to a crash is simply redone by the next one.
    return this.run(['responses', 'events'], 'readwrite', 'relaxed', async (tx) => {
      const ids = await select(tx);
      for (const id of ids) {
        quiet(tx.objectStore('responses').delete(id));
        quiet(tx.objectStore('events').delete(eventRange(id)));
      }
      return ids.length;
    });
  }

  /**
   * Runs `work` in one transaction and resolves once it has committed. On any failure the
   * transaction is aborted (a synchronous throw from `put` does not abort it by itself) and the
   * error becomes an ApiError. The transaction's own error wins over a request's AbortError,
   * because that is where browsers report QuotaExceededError.
   */
  private async run<S extends IntabStoreName[], M extends IDBTransactionMode, T>(
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
      throw toStorageError(tx.error ?? err);
    }
  }
}

/** All of one response's events: `[id, -Infinity]..[id, Infinity]` covers every sequence number. */
function eventRange(responseId: string): IDBKeyRange {
  return IDBKeyRange.bound([responseId, -Infinity], [responseId, Infinity]);
}

/** Write requests are checked through `tx.done`; this keeps their own rejections from going unhandled. */
function quiet(request: Promise<unknown>): void {
  request.catch(noop);
}
