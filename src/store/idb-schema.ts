import { type IDBPDatabase, wrap } from 'idb';
import { responseItemEntries } from './idb-item-index';
import type { IntabDB, IntabStoreName, IntabTx } from './idb-types';
import { storageClosed, toStorageError } from './storage-error';

/** Default database name; one per origin, shared by every tab. */
export const DB_NAME = 'intab';
/** Current schema version. Bump it and add a `case` to {@link upgradeSchema} for every change. */
export const DB_VERSION = 3;

export type { IntabDB, IntabStoreName, IntabTx, ItemIndexEntry, StoredConversationItem } from './idb-types';

/**
 * Migrations keyed on the version the database had. Each `case` falls through to the next so a
 * database at any old version walks every later step in order, stopping at `newVersion` (tests open
 * older versions to exercise the migrations). `tx` is the upgrade transaction, for data migrations.
 *
 * @example
 * upgradeSchema(db, 0, DB_VERSION, tx); // fresh database: creates every store of every version
 */
export function upgradeSchema(
  db: IDBPDatabase<IntabDB>,
  oldVersion: number,
  newVersion: number,
  tx: IntabTx<IntabStoreName[], 'versionchange'>,
): void {
  switch (oldVersion) {
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: each step migrates one version further
    case 0: {
      const responses = db.createObjectStore('responses', { keyPath: 'response.id' });
      // Records with `expiresAt: null` have no valid key at this path, so IndexedDB leaves them out
      // of the index: the expiry sweep never even visits entries that never expire.
      responses.createIndex('by_expiry', 'expiresAt');
      responses.createIndex('by_created', 'response.created_at');
      db.createObjectStore('events');
      if (newVersion < 2) break;
    }
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: each step migrates one version further
    case 1: {
      const conversations = db.createObjectStore('conversations', { keyPath: 'conversation.id' });
      conversations.createIndex('by_expiry', 'expiresAt');
      conversations.createIndex('by_created', 'conversation.created_at');
      const convItems = db.createObjectStore('conversation_items', {
        keyPath: ['conversationId', 'position'],
      });
      // Unique: an item id names one item of a conversation, so get and delete by id are unambiguous.
      convItems.createIndex('by_item', ['conversationId', 'item.id'], { unique: true });
      const items = db.createObjectStore('items');
      // Each entry has exactly one of these fields; the other index simply leaves it out.
      items.createIndex('by_response', 'responseId');
      items.createIndex('by_conversation', 'conversationId');
      if (oldVersion === 1) backfillItemIndex(tx);
      if (newVersion < 3) break;
    }
    case 2: {
      // Files: metadata and bytes apart, so listing and retrieving never read the bytes.
      const files = db.createObjectStore('files', { keyPath: 'file.id' });
      files.createIndex('by_expiry', 'expiresAt');
      // Ties by id: uploads within one second still list in one stable order.
      files.createIndex('by_created', ['file.created_at', 'file.id']);
      db.createObjectStore('file_bytes');
      createVectorStoreStores(db);
    }
    // falls through: version 4 goes here as `case 3:`.
  }
}

/**
 * Version 3's vector stores: the stores, their files (keyed `[vectorStoreId, fileId]`, indexed by
 * file for the Files API's delete), their batches, and each indexed file's chunk texts and vectors,
 * out of line under the same `[vectorStoreId, fileId]` key so one range drops a whole store.
 */
function createVectorStoreStores(db: IDBPDatabase<IntabDB>): void {
  db.createObjectStore('vector_stores', { keyPath: 'id' });
  const files = db.createObjectStore('vector_store_files', { keyPath: ['vectorStoreId', 'fileId'] });
  files.createIndex('by_file', 'fileId');
  db.createObjectStore('vector_store_batches', { keyPath: ['vectorStoreId', 'id'] });
  db.createObjectStore('vector_chunks');
  db.createObjectStore('vector_vectors');
}

/**
 * Indexes the items of responses stored before version 2, so `item_reference` still finds them.
 * Runs inside the upgrade transaction: the open request succeeds only once this has committed, and an
 * IndexedDB failure (quota) aborts the whole upgrade, leaving the database at version 1.
 */
function backfillItemIndex(tx: IntabTx<IntabStoreName[], 'versionchange'>): void {
  const items = tx.objectStore('items');
  const walk = async () => {
    let cursor = await tx.objectStore('responses').openCursor();
    while (cursor) {
      for (const [key, entry] of responseItemEntries(cursor.value)) items.put(entry, key).catch(noop);
      cursor = await cursor.continue();
    }
  };
  // IDB failures abort the transaction by themselves. Anything else (a malformed old record) only
  // costs `item_reference` lookups of old items, which is no reason to lock the user out of storage.
  walk().catch(noop);
}

const noop = () => {};

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  factory: IDBFactory;
  name?: string;
  version?: number;
  /** How long to wait for other tabs to close an older connection before giving up. */
  blockedTimeoutMs?: number;
  /** Called when this connection goes away without `close()` (other tab upgrading, browser). */
  onClosed?: (reason: string) => void;
}

/**
 * Opens the database on an explicit factory. This mirrors idb's `openDB`, which only knows the
 * global `indexedDB`; taking the factory lets tests give every case its own fake-indexeddb.
 *
 * @example
 * const db = await openDatabase({ factory: indexedDB, onClosed: (why) => console.warn(why) });
 */
export function openDatabase(opts: OpenDatabaseOptions): Promise<IDBPDatabase<IntabDB>> {
  const { factory, name = DB_NAME, version = DB_VERSION, blockedTimeoutMs = 10_000, onClosed } = opts;
  return new Promise((resolve, reject) => {
    let request: IDBOpenDBRequest;
    try {
      request = factory.open(name, version);
    } catch (err) {
      reject(toStorageError(err));
      return;
    }
    let gaveUp = false;
    let blockedTimer: ReturnType<typeof setTimeout> | undefined;
    request.addEventListener('upgradeneeded', (event) => {
      const db = wrap(request.result) as unknown as IDBPDatabase<IntabDB>;
      const tx = wrap(request.transaction as IDBTransaction) as unknown as IntabTx<
        IntabStoreName[],
        'versionchange'
      >;
      upgradeSchema(db, event.oldVersion, event.newVersion ?? version, tx);
    });
    // `blocked` means a tab running older code still holds the database open and did not close
    // on `versionchange`. Waiting forever would hang every request, so fail with a clear error.
    request.addEventListener('blocked', () => {
      blockedTimer ??= setTimeout(() => {
        gaveUp = true;
        reject(storageClosed('another tab keeps an older version of the database open; close other tabs'));
      }, blockedTimeoutMs);
    });
    request.addEventListener('error', () => {
      clearTimeout(blockedTimer);
      reject(toStorageError(request.error));
    });
    request.addEventListener('success', () => {
      clearTimeout(blockedTimer);
      const raw = request.result;
      // The open request outlived our timeout: nobody owns this connection, so don't let it in
      // turn block the next upgrade.
      if (gaveUp) return raw.close();
      // Another tab wants a newer schema. Closing lets its upgrade run instead of blocking it;
      // this tab's later calls fail with a "reload" error, which is what it needs anyway.
      raw.addEventListener('versionchange', () => {
        raw.close();
        onClosed?.('another tab is upgrading the database');
      });
      // Fired only on abnormal termination (storage cleared, disk error), never on close().
      raw.addEventListener('close', () => onClosed?.('the browser closed the database'));
      resolve(wrap(raw) as unknown as IDBPDatabase<IntabDB>);
    });
  });
}
