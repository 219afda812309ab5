import type { IDBPDatabase } from 'idb';
import type { Conversation } from 'openai/resources/conversations/conversations';
import type { ConversationItem } from 'openai/resources/conversations/items';
import type { ResponseItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ConversationDelegation } from './conversation-delegation';
import { isLive, type ResolvedLimits, resolveLimits, withExpiry } from './expiry';
import { type FileStore, IdbFiles } from './files';
import { IdbConversations } from './idb-conversations';
import { findLiveItem, indexResponse, unindexOwner } from './idb-item-index';
import { DB_NAME, type IntabDB, type IntabTx, openDatabase } from './idb-schema';
import { type ConnectionState, ownerRange, quiet, type SweepableStore, sweepStore, TxRunner } from './idb-tx';
import { storageClosed } from './storage-error';
import type { RecentEntries, ResponseStore, StoredResponse, StoreLimits, SweepResult } from './types';
import { IdbVectorStores } from './vector-stores/idb-vector-stores';

/** Options of {@link openIdbStore}. */
export interface IdbStoreOptions extends StoreLimits {
  /** Database name; defaults to `intab`. */
  name?: string;
  /** Factory to open it on; defaults to the global `indexedDB` (tests pass fake-indexeddb's). */
  indexedDB?: IDBFactory;
}

/** Stores a response's data lives in: the record, its event log and its entries in the item index. */
type ResponseStores = ['responses', 'events', 'items'];
const RESPONSE_STORES: ResponseStores = ['responses', 'events', 'items'];

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

/**
 * {@link ResponseStore} on IndexedDB. Each method is its own short transaction that awaits only IDB
 * requests (awaiting anything else lets the transaction auto-commit midway). Every failure rejects
 * with an ApiError; a failed write aborts its transaction, so earlier data stays as it was.
 * Conversation methods live in {@link IdbConversations} and share this connection.
 *
 * @example
 * const store = await openIdbStore();
 * await store.appendEvents('resp_1', events); // one transaction for the whole batch
 * const tail = await store.readEvents('resp_1', 41);
 */
export class IdbStore extends ConversationDelegation implements ResponseStore {
  private readonly runner: TxRunner;
  protected readonly conversations: IdbConversations;
  readonly files: FileStore;
  /** Vector stores, their files, chunks and vectors (see VectorStoreStore), on this connection. */
  readonly vectorStores: IdbVectorStores;

  /** Prefer {@link openIdbStore}, which opens and migrates the database first. */
  constructor(
    private readonly db: IDBPDatabase<IntabDB>,
    private readonly limits: ResolvedLimits = resolveLimits(),
    private readonly state: ConnectionState = {},
  ) {
    super();
    this.runner = new TxRunner(db, state);
    this.conversations = new IdbConversations(this.runner, limits);
    this.files = new IdbFiles(this.runner, limits.now);
    this.vectorStores = new IdbVectorStores(this.runner);
  }

  async putResponse(record: StoredResponse, opts: { durable?: boolean } = {}): Promise<void> {
    const value = withExpiry(record, this.limits);
    // Intermediate snapshots are superseded by the final write, so only that one pays for a flush.
    const durability = opts.durable ? 'strict' : 'relaxed';
    // The item index is written with the record, so `item_reference` never sees one without the other.
    await this.runner.run(['responses', 'items'], 'readwrite', durability, async (tx) => {
      quiet(tx.objectStore('responses').put(value));
      await indexResponse(tx.objectStore('items'), value);
    });
  }

  async getResponse(id: string): Promise<StoredResponse | undefined> {
    const record = await this.runner.run(['responses'], 'readonly', 'default', (tx) =>
      tx.objectStore('responses').get(id),
    );
    return isLive(record, this.limits.now()) ? record : undefined;
  }

  async listRecent(limit: number): Promise<RecentEntries> {
    const now = this.limits.now();
    return this.runner.run(['responses', 'conversations'], 'readonly', 'default', async (tx) => {
      const responses: RecentEntries['responses'] = [];
      let rc = await tx.objectStore('responses').index('by_created').openCursor(null, 'prev');
      while (rc && responses.length < limit) {
        if (isLive(rc.value, now)) responses.push(rc.value.response);
        rc = await rc.continue();
      }
      const conversations: Conversation[] = [];
      let cc = await tx.objectStore('conversations').index('by_created').openCursor(null, 'prev');
      while (cc && conversations.length < limit) {
        if (isLive(cc.value, now)) conversations.push(cc.value.conversation);
        cc = await cc.continue();
      }
      return { responses, conversations };
    });
  }

  async listUnfinished(): Promise<StoredResponse[]> {
    const all = await this.runner.run(['responses'], 'readonly', 'default', (tx) =>
      tx.objectStore('responses').getAll(),
    );
    const now = this.limits.now();
    return all.filter((r) => isLive(r, now) && isUnfinished(r));
  }

  async deleteResponse(id: string): Promise<boolean> {
    return this.runner.run(RESPONSE_STORES, 'readwrite', 'default', async (tx) => {
      const existing = await tx.objectStore('responses').get(id);
      await deleteResponse(tx, id);
      // An expired record is already gone as far as clients can tell (GET says 404), so say so here too.
      return isLive(existing, this.limits.now());
    });
  }

  async appendEvents(responseId: string, events: ResponseStreamEvent[]): Promise<void> {
    const first = events[0];
    if (!first) return;
    // Events are replayable from the final response record, so a lost tail on crash is acceptable.
    // One record per batch: IndexedDB's cost is per put, and a stream has thousands of events.
    await this.runner.run(['events'], 'readwrite', 'relaxed', (tx) => {
      quiet(tx.objectStore('events').put(events, [responseId, first.sequence_number]));
    });
  }

  async readEvents(responseId: string, startingAfter?: number): Promise<ResponseStreamEvent[]> {
    // A batch keyed before `startingAfter` may still hold later events, so the whole log is read.
    const records = await this.runner.run(['events'], 'readonly', 'default', (tx) =>
      tx.objectStore('events').getAll(ownerRange(responseId)),
    );
    const after = startingAfter ?? Number.NEGATIVE_INFINITY;
    return records
      .flat()
      .filter((e) => e.sequence_number > after)
      .sort((a, b) => a.sequence_number - b.sequence_number);
  }

  findItem(itemId: string): Promise<ResponseItem | ConversationItem | undefined> {
    const now = this.limits.now();
    return this.runner.run(['items', 'responses', 'conversations'], 'readonly', 'default', (tx) =>
      findLiveItem(tx, itemId, now),
    );
  }

  /**
   * Deletes expired responses, then the oldest ones beyond `maxResponses`, with their events; then
   * the same for conversations. Works in batches of short transactions so requests interleave with a
   * long sweep instead of queueing behind it.
   *
   * @example
   * void store.sweep().catch(() => {}); // opportunistic, off the request path
   */
  async sweep(): Promise<SweepResult> {
    const { expired, trimmed } = await this.sweepResponses();
    const conversations = await this.conversations.sweep();
    await this.files.sweep();
    return {
      expired,
      trimmed,
      expiredConversations: conversations.expired,
      trimmedConversations: conversations.trimmed,
    };
  }

  /** Releases the connection; later calls reject with a 503 ApiError. */
  close(): void {
    this.state.closedReason ??= 'the store was closed';
    this.db.close();
  }

  private sweepResponses(): Promise<{ expired: number; trimmed: number }> {
    return sweepStore(
      (pick) => this.deleteBatch((tx) => pick(tx.objectStore('responses') as unknown as SweepableStore)),
      this.limits.now(),
      this.limits.maxResponses,
    );
  }

  /** One sweep step: selects up to a batch of response ids and deletes them with their events. */
  private deleteBatch(
    select: (tx: IntabTx<ResponseStores, 'readwrite'>) => Promise<string[]>,
  ): Promise<number> {
    // Relaxed: a sweep lost to a crash is simply redone by the next one.
    return this.runner.run(RESPONSE_STORES, 'readwrite', 'relaxed', async (tx) => {
      const ids = await select(tx);
      for (const id of ids) await deleteResponse(tx, id);
      return ids.length;
    });
  }
}

/** Removes a response, its events and its own item-index entries, in the caller's transaction. */
async function deleteResponse(tx: IntabTx<ResponseStores, 'readwrite'>, id: string): Promise<void> {
  quiet(tx.objectStore('responses').delete(id));
  quiet(tx.objectStore('events').delete(ownerRange(id)));
  await unindexOwner(tx.objectStore('items'), 'by_response', id);
}

function isUnfinished(r: StoredResponse): boolean {
  return r.response.status === 'queued' || r.response.status === 'in_progress';
}
