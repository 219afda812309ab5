// IdbStore-only behaviour of schema version 2: transactions, rollback, the item index's own
// bookkeeping and the v1 → v2 upgrade. The shared contract is in store-conversations.test.ts.
import 'fake-indexeddb/auto';
import { IDBDatabase as FakeDatabase, IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/store/idb-schema';
import { DB_NAME, type IdbStore, openIdbStore } from '../../src/store/index';
import { makeConversation, makeConversationItems } from './fixtures/conversation-fixture';
import { makeDeltaEvents, makeStoredResponse } from './fixtures/response-fixture';
import { failNthPut, openRaw } from './fixtures/store-harness';

afterEach(() => vi.restoreAllMocks());

describe('IdbStore conversations', () => {
  let factory: IDBFactory;
  let store: IdbStore;
  beforeEach(async () => {
    factory = new IDBFactory();
    store = await openIdbStore({ indexedDB: factory });
    await store.putConversation(makeConversation('conv_a'));
  });
  afterEach(() => store.close());

  it('appends a whole batch in one readwrite transaction', async () => {
    const transaction = vi.spyOn(FakeDatabase.prototype, 'transaction');
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 10));
    expect(transaction).toHaveBeenCalledTimes(1);
    expect(transaction.mock.calls[0]?.slice(0, 2)).toEqual([
      ['conversations', 'conversation_items', 'items'],
      'readwrite',
    ]);
  });

  it('writes a response and its item index in one transaction, rolled back together', async () => {
    const transaction = vi.spyOn(FakeDatabase.prototype, 'transaction');
    await store.putResponse(makeStoredResponse('resp_a'));
    expect(transaction.mock.calls.map((c) => c[0])).toEqual([['responses', 'items']]);
    failNthPut(2, 'abort'); // the first index entry, after the record itself
    await expect(store.putResponse(makeStoredResponse('resp_b'))).rejects.toMatchObject({ status: 507 });
    expect(await store.getResponse('resp_b')).toBeUndefined();
    expect(await store.findItem('msg_in_resp_b')).toBeUndefined();
  });

  it.each(['throw', 'abort'] as const)('keeps earlier items when an append fails (%s)', async (how) => {
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 3));
    failNthPut(2, how);
    await expect(
      store.appendConversationItems('conv_a', makeConversationItems('a', 3, 3)),
    ).rejects.toMatchObject({ status: 507, code: 'storage_quota_exceeded' });
    vi.restoreAllMocks();
    const page = await store.listConversationItems('conv_a', { limit: 10, order: 'asc' });
    expect(page.data).toEqual(makeConversationItems('a', 0, 3));
    expect(await store.findItem('msg_a_3')).toBeUndefined();
    await store.appendConversationItems('conv_a', makeConversationItems('a', 3, 1)); // still usable
    expect(await store.getConversationItem('conv_a', 'msg_a_3')).toBeDefined();
  });

  it('leaves no item-index entries behind once their owners are deleted or swept', async () => {
    store.close();
    let clock = 0;
    store = await openIdbStore({ indexedDB: factory, ttlMs: 1_000, now: () => clock });
    await store.putResponse(makeStoredResponse('resp_a'));
    await store.putResponse(makeStoredResponse('resp_b'));
    await store.putConversation(makeConversation('conv_b'));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 2));
    await store.appendConversationItems('conv_b', makeConversationItems('b', 0, 2));
    expect(await countItemEntries()).toBe(8); // 2 per response (input + output), 2 per conversation
    await store.deleteResponse('resp_a');
    await store.deleteConversation('conv_a');
    expect(await countItemEntries()).toBe(4);
    clock = 5_000;
    expect(await store.sweep()).toMatchObject({ expired: 1, expiredConversations: 1 });
    expect(await countItemEntries()).toBe(0);
  });

  /** Entries in the raw `items` store, read on a second connection. */
  async function countItemEntries(): Promise<number> {
    const db = await openRaw(factory, DB_NAME);
    const count = db.transaction('items').objectStore('items').count();
    const n = await new Promise<number>((resolve) => {
      count.onsuccess = () => resolve(count.result);
    });
    db.close();
    return n;
  }

  it('upgrades a version-1 database in place, keeping its data and indexing its items', async () => {
    store.close();
    const legacy = new IDBFactory();
    const v1 = await openDatabase({ factory: legacy, version: 1 });
    expect([...v1.objectStoreNames]).toEqual(['events', 'responses']);
    await v1.put('responses', { ...makeStoredResponse('resp_old'), expiresAt: null });
    for (const event of makeDeltaEvents('resp_old', 0, 3)) {
      await v1.put('events', event, ['resp_old', event.sequence_number]);
    }
    v1.close();

    store = await openIdbStore({ indexedDB: legacy });
    expect(await store.getResponse('resp_old')).toEqual({
      ...makeStoredResponse('resp_old'),
      expiresAt: null,
    });
    expect(await store.readEvents('resp_old')).toEqual(makeDeltaEvents('resp_old', 0, 3));
    expect(await store.findItem('msg_in_resp_old')).toEqual(makeStoredResponse('resp_old').inputItems[0]);
    expect(await store.findItem('msg_resp_old')).toBeDefined();
    await store.putConversation(makeConversation('conv_new'));
    await store.appendConversationItems('conv_new', makeConversationItems('n', 0, 1));
    expect(await store.findItem('msg_n_0')).toBeDefined();
    store.close();
    const db = await openRaw(legacy, DB_NAME);
    expect(db.version).toBe(3);
    expect([...db.objectStoreNames]).toEqual([
      'conversation_items',
      'conversations',
      'events',
      'file_bytes',
      'files',
      'items',
      'responses',
      'vector_chunks',
      'vector_store_batches',
      'vector_store_files',
      'vector_stores',
      'vector_vectors',
    ]);
    db.close();
    store = await openIdbStore({ indexedDB: legacy }); // for afterEach
  });
});
