import { type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames, wrap } from 'idb';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { storageClosed, toStorageError } from './storage-error';
import type { StoredResponse } from './types';

/** Default database name; one per origin, shared by every tab. */
export const DB_NAME = 'intab';
/** Current schema version. Bump it and add a `case` to {@link upgradeSchema} for every change. */
export const DB_VERSION = 1;

/**
 * The typed schema. `events` keys are `[responseId, sequence_number]` so one key range selects a
 * response's log in order, and deleting a response's events needs no index.
 *
 * @example
 * const db: IDBPDatabase<IntabDB> = await openDatabase({ factory: indexedDB });
 */
export interface IntabDB extends DBSchema {
  responses: {
    key: string;
    value: StoredResponse;
    indexes: { by_expiry: number; by_created: number };
  };
  events: {
    key: [string, number];
    value: ResponseStreamEvent;
  };
}

/**
 * Migrations keyed on the version the database had. Each `case` falls through to the next so a
 * database at any old version walks every later step in order.
 *
 * @example
 * upgradeSchema(db, 0); // fresh database: creates every store of version 1
 */
export function upgradeSchema(db: IDBPDatabase<IntabDB>, oldVersion: number): void {
  switch (oldVersion) {
    case 0: {
      const responses = db.createObjectStore('responses', { keyPath: 'response.id' });
      // Records with `expiresAt: null` have no valid key at this path, so IndexedDB leaves them out
      // of the index: the expiry sweep never even visits entries that never expire.
      responses.createIndex('by_expiry', 'expiresAt');
      responses.createIndex('by_created', 'response.created_at');
      db.createObjectStore('events');
    }
    // falls through: version 2 (conversations, conversation_items) goes here as `case 1:`.
  }
}

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
      upgradeSchema(db, event.oldVersion);
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

/** Stores a transaction may span, spelled with the schema's names. */
export type IntabStoreName = StoreNames<IntabDB>;
/** A transaction of the schema over some stores. */
export type IntabTx<S extends IntabStoreName[], M extends IDBTransactionMode> = IDBPTransaction<
  IntabDB,
  S,
  M
>;
