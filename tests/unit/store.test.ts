// idb looks up IDBRequest, IDBTransaction, IDBKeyRange… as globals; every test still gets its own
// IDBFactory so no state leaks between cases.
import 'fake-indexeddb/auto';
import { IDBDatabase as FakeDatabase, IDBObjectStore as FakeObjectStore, IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { openDatabase } from '../../src/store/idb-schema';
import { DB_NAME, DB_VERSION, type IdbStore, openIdbStore, type SweepResult } from '../../src/store/index';
import { makeDeltaEvents, makeStoredResponse } from './fixtures/response-fixture';
import { failNthPut, openRaw, type SweepingStore, storeImplementations } from './fixtures/store-harness';

afterEach(() => vi.restoreAllMocks());

describe.each(storeImplementations)('ResponseStore contract: $name', ({ open }) => {
  let store: SweepingStore;
  let clock: number;
  const now = () => clock;
  beforeEach(async () => {
    clock = 1_000_000;
    store = await open({ now });
  });
  afterEach(() => store.close());

  it('round-trips a record as a deep-equal copy that callers cannot mutate', async () => {
    const record = makeStoredResponse('resp_a');
    await store.putResponse(record, { durable: true });
    const got = await store.getResponse('resp_a');
    expect(got).toEqual({ ...record, expiresAt: null });
    if (!got) throw new Error('unreachable');
    got.response.status = 'failed';
    got.inputItems.length = 0;
    record.response.model = 'mutated-after-put';
    expect(await store.getResponse('resp_a')).toEqual({ ...makeStoredResponse('resp_a'), expiresAt: null });
    expect(await store.getResponse('resp_missing')).toBeUndefined();
  });

  it('overwrites a record with the same id', async () => {
    await store.putResponse(makeStoredResponse('resp_a', { status: 'in_progress', output: [] }));
    await store.putResponse(makeStoredResponse('resp_a'), { durable: true });
    expect((await store.getResponse('resp_a'))?.response.status).toBe('completed');
  });

  it('deletes a response with its events, and reports whether it existed', async () => {
    await store.putResponse(makeStoredResponse('resp_a'));
    await store.putResponse(makeStoredResponse('resp_b'));
    await store.appendEvents('resp_a', makeDeltaEvents('resp_a', 0, 5));
    await store.appendEvents('resp_b', makeDeltaEvents('resp_b', 0, 3));
    expect(await store.deleteResponse('resp_a')).toBe(true);
    expect(await store.deleteResponse('resp_a')).toBe(false);
    expect(await store.getResponse('resp_a')).toBeUndefined();
    expect(await store.readEvents('resp_a')).toEqual([]);
    expect(await store.readEvents('resp_b')).toEqual(makeDeltaEvents('resp_b', 0, 3));
    expect(await store.getResponse('resp_b')).toBeDefined();
  });

  it('appends events in batches and reads them after a sequence number', async () => {
    await store.appendEvents('resp_a', makeDeltaEvents('resp_a', 0, 4));
    await store.appendEvents('resp_a', makeDeltaEvents('resp_a', 4, 4));
    await store.appendEvents('resp_a', []);
    expect(await store.readEvents('resp_a')).toEqual(makeDeltaEvents('resp_a', 0, 8));
    expect(await store.readEvents('resp_a', 5)).toEqual(makeDeltaEvents('resp_a', 6, 2));
    expect(await store.readEvents('resp_a', -1)).toEqual(makeDeltaEvents('resp_a', 0, 8));
    expect(await store.readEvents('resp_a', 7)).toEqual([]);
    expect(await store.readEvents('resp_other')).toEqual([]);
  });

  it('returns many events in numeric sequence order whatever the batch order', async () => {
    // 250 events: numeric vs. lexicographic order differ (9 < 10 < 100), and batches arrive shuffled.
    const batches = [200, 0, 100, 50, 150].map((from) => makeDeltaEvents('resp_a', from, 50));
    for (const batch of batches) await store.appendEvents('resp_a', batch.reverse());
    const events = await store.readEvents('resp_a');
    expect(events.map((e) => e.sequence_number)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    events[0] = { ...events[0], sequence_number: 999 } as (typeof events)[number];
    expect((await store.readEvents('resp_a', 248)).map((e) => e.sequence_number)).toEqual([249]);
  });

  it('stamps records with a TTL, hides them once expired, and sweeps them with their events', async () => {
    store = await open({ now, ttlMs: 60_000 });
    await store.putResponse(makeStoredResponse('resp_old'));
    await store.appendEvents('resp_old', makeDeltaEvents('resp_old', 0, 3));
    await store.putResponse({ ...makeStoredResponse('resp_pinned'), expiresAt: null });
    clock += 30_000;
    await store.putResponse(makeStoredResponse('resp_new'));
    expect((await store.getResponse('resp_old'))?.expiresAt).toBe(1_060_000);
    clock = 1_060_000;
    expect(await store.getResponse('resp_old')).toBeDefined(); // expired only *after* expiresAt
    clock = 1_060_001;
    expect(await store.getResponse('resp_old')).toBeUndefined();
    expect(await store.sweep()).toEqual(sweepResult(1, 0));
    expect(await store.readEvents('resp_old')).toEqual([]);
    expect(await store.deleteResponse('resp_old')).toBe(false);
    expect(await store.getResponse('resp_new')).toBeDefined();
    clock += 10 * 365 * 86_400_000;
    expect(await store.getResponse('resp_pinned')).toBeDefined();
  });

  it('trims to maxResponses, oldest created_at first', async () => {
    store = await open({ now, maxResponses: 2 });
    for (const [id, created] of [
      ['r3', 30],
      ['r1', 10],
      ['r4', 40],
      ['r2', 20],
    ] as const) {
      await store.putResponse(makeStoredResponse(id, { created_at: created }));
      await store.appendEvents(id, makeDeltaEvents(id, 0, 2));
    }
    expect(await store.sweep()).toEqual(sweepResult(0, 2));
    const left = await Promise.all(['r1', 'r2', 'r3', 'r4'].map((id) => store.getResponse(id)));
    expect(left.map((r) => r?.response.id)).toEqual([undefined, undefined, 'r3', 'r4']);
    expect(await store.readEvents('r1')).toEqual([]);
    expect(await store.readEvents('r4')).toHaveLength(2);
    expect(await store.sweep()).toEqual(sweepResult(0, 0));
  });
});

describe('IdbStore', () => {
  let factory: IDBFactory;
  let store: IdbStore;
  beforeEach(async () => {
    factory = new IDBFactory();
    store = await openIdbStore({ indexedDB: factory });
  });
  afterEach(() => store.close());

  it('writes a whole appendEvents batch in one transaction', async () => {
    const transaction = vi.spyOn(FakeDatabase.prototype, 'transaction');
    await store.appendEvents('resp_a', makeDeltaEvents('resp_a', 0, 50));
    expect(transaction).toHaveBeenCalledTimes(1);
    expect(transaction.mock.calls[0]?.slice(0, 2)).toEqual([['events'], 'readwrite']);
    expect(await store.readEvents('resp_a')).toHaveLength(50);
  });

  it('stores a batch as one record, and still reads single-event records of older logs', async () => {
    await store.appendEvents('resp_a', makeDeltaEvents('resp_a', 2, 3));
    store.close();
    const raw = await openRaw(factory, DB_NAME);
    const tx = raw.transaction('events', 'readwrite');
    const [legacy0, legacy1] = makeDeltaEvents('resp_a', 0, 2);
    tx.objectStore('events').put(legacy0, ['resp_a', 0]);
    tx.objectStore('events').put(legacy1, ['resp_a', 1]);
    const count = await new Promise<number>((resolve) => {
      const req = tx.objectStore('events').count();
      req.onsuccess = () => resolve(req.result);
    });
    await new Promise((resolve) => {
      tx.oncomplete = resolve;
    });
    raw.close();
    expect(count).toBe(3); // two legacy records + one batch of three
    store = await openIdbStore({ indexedDB: factory });
    expect(await store.readEvents('resp_a')).toEqual(makeDeltaEvents('resp_a', 0, 5));
    expect(await store.readEvents('resp_a', 2)).toEqual(makeDeltaEvents('resp_a', 3, 2));
  });

  it('asks for strict durability only for durable puts', async () => {
    const transaction = vi.spyOn(FakeDatabase.prototype, 'transaction');
    await store.putResponse(makeStoredResponse('resp_a'));
    await store.putResponse(makeStoredResponse('resp_a'), { durable: true });
    expect(transaction.mock.calls.map((c) => c[2])).toEqual([
      { durability: 'relaxed' },
      { durability: 'strict' },
    ]);
  });

  it('keeps data across close and reopen, and rejects calls after close', async () => {
    await store.putResponse(makeStoredResponse('resp_a'), { durable: true });
    await store.appendEvents('resp_a', makeDeltaEvents('resp_a', 0, 3));
    store.close();
    await expect(store.getResponse('resp_a')).rejects.toMatchObject({
      status: 503,
      code: 'storage_unavailable',
    });
    store = await openIdbStore({ indexedDB: factory });
    expect(await store.getResponse('resp_a')).toEqual({ ...makeStoredResponse('resp_a'), expiresAt: null });
    expect(await store.readEvents('resp_a')).toEqual(makeDeltaEvents('resp_a', 0, 3));
  });

  it('creates the version-3 schema on a fresh database', async () => {
    store.close();
    const db = await openRaw(factory, DB_NAME);
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
    const tx = db.transaction(['responses', 'conversations', 'conversation_items', 'items']);
    const responses = tx.objectStore('responses');
    expect(responses.keyPath).toBe('response.id');
    expect([...responses.indexNames]).toEqual(['by_created', 'by_expiry']);
    expect(responses.index('by_expiry').keyPath).toBe('expiresAt');
    expect(responses.index('by_created').keyPath).toBe('response.created_at');
    const conversations = tx.objectStore('conversations');
    expect(conversations.keyPath).toBe('conversation.id');
    expect([...conversations.indexNames]).toEqual(['by_created', 'by_expiry']);
    const convItems = tx.objectStore('conversation_items');
    expect(convItems.keyPath).toEqual(['conversationId', 'position']);
    expect(convItems.index('by_item').keyPath).toEqual(['conversationId', 'item.id']);
    expect(convItems.index('by_item').unique).toBe(true);
    expect([...tx.objectStore('items').indexNames]).toEqual(['by_conversation', 'by_response']);
    db.close();
  });

  it('sweeps in short batches so other requests run in between', async () => {
    let clock = 0;
    store.close();
    store = await openIdbStore({ indexedDB: factory, ttlMs: 1_000, now: () => clock });
    await Promise.all(Array.from({ length: 120 }, (_, i) => store.putResponse(makeStoredResponse(`r${i}`))));
    await store.putResponse({ ...makeStoredResponse('keep'), expiresAt: null });
    clock = 5_000;
    const transaction = vi.spyOn(FakeDatabase.prototype, 'transaction');
    const order: string[] = [];
    const settled = <T>(name: string, p: Promise<T>) =>
      p.finally(() => {
        order.push(name);
      });
    const sweeping = settled('sweep', store.sweep());
    const reading = settled('get', store.getResponse('keep'));
    expect(await sweeping).toEqual(sweepResult(120, 0));
    expect(await reading).toBeDefined();
    expect(order).toEqual(['get', 'sweep']);
    // 50 + 50 + 20 expired responses, one (empty) batch of expired conversations, one of expired
    // files, plus the get.
    expect(transaction).toHaveBeenCalledTimes(6);
  });

  describe('failures', () => {
    it.each(['throw', 'abort'] as const)(
      'maps QuotaExceededError (%s) to 507 and keeps prior data',
      async (how) => {
        await store.putResponse(makeStoredResponse('resp_a', { status: 'in_progress' }));
        await store.putResponse(makeStoredResponse('resp_b'));
        failNthPut(1, how);
        const failed = store.putResponse(makeStoredResponse('resp_a'), { durable: true });
        await expect(failed).rejects.toBeInstanceOf(ApiError);
        await expect(failed).rejects.toMatchObject({
          status: 507,
          type: 'server_error',
          code: 'storage_quota_exceeded',
          message: expect.stringMatching(/^Browser storage is full/),
        });
        expect((await store.getResponse('resp_a'))?.response.status).toBe('in_progress');
        expect(await store.getResponse('resp_b')).toBeDefined();
        await store.putResponse(makeStoredResponse('resp_a')); // the store is still usable
        expect((await store.getResponse('resp_a'))?.response.status).toBe('completed');
      },
    );

    it('commits a write that changes nothing after a quota failure, and only after one', async () => {
      // Chromium counts an aborted write's bytes until some transaction commits (see TxRunner).
      await store.putResponse(makeStoredResponse('resp_a', { status: 'in_progress' }));
      const transaction = vi.spyOn(FakeDatabase.prototype, 'transaction');
      const committed = vi.spyOn(FakeObjectStore.prototype, 'delete');
      failNthPut(1, 'abort');
      await expect(store.putResponse(makeStoredResponse('resp_a'), { durable: true })).rejects.toMatchObject({
        code: 'storage_quota_exceeded',
      });
      expect(transaction.mock.calls.map(([, mode]) => mode)).toEqual(['readwrite', 'readwrite']);
      expect(committed).toHaveBeenCalledTimes(1);
      expect((await store.getResponse('resp_a'))?.response.status).toBe('in_progress');
      transaction.mockClear();
      failNthPut(1, 'abort', () => new DOMException('disk on fire', 'UnknownError'));
      await expect(store.putResponse(makeStoredResponse('resp_a'))).rejects.toMatchObject({
        code: 'storage_error',
      });
      expect(transaction).toHaveBeenCalledTimes(1);
    });

    it.each(['throw', 'abort'] as const)(
      'keeps earlier events when a later batch fails (%s)',
      async (how) => {
        await store.appendEvents('resp_a', makeDeltaEvents('resp_a', 0, 3));
        // A batch is one record, so its one put failing is the whole batch failing.
        failNthPut(1, how);
        await expect(store.appendEvents('resp_a', makeDeltaEvents('resp_a', 3, 5))).rejects.toMatchObject({
          status: 507,
        });
        expect(await store.readEvents('resp_a')).toEqual(makeDeltaEvents('resp_a', 0, 3));
      },
    );

    it('maps any other IndexedDB failure to 500 storage_error', async () => {
      await store.putResponse(makeStoredResponse('resp_a'));
      failNthPut(1, 'abort', () => new DOMException('disk on fire', 'UnknownError'));
      await expect(
        store.putResponse(makeStoredResponse('resp_a', { status: 'failed' })),
      ).rejects.toMatchObject({
        status: 500,
        type: 'server_error',
        code: 'storage_error',
        message: expect.stringContaining('UnknownError'),
      });
      expect((await store.getResponse('resp_a'))?.response.status).toBe('completed');
    });

    it('closes on versionchange so another tab can upgrade', async () => {
      const newer = await openRaw(factory, DB_NAME, DB_VERSION + 1);
      expect(newer.version).toBe(DB_VERSION + 1);
      newer.close();
      await expect(store.getResponse('resp_a')).rejects.toMatchObject({
        status: 503,
        code: 'storage_unavailable',
      });
    });

    it('gives up on an upgrade blocked by a connection that never closes', async () => {
      store.close();
      const stubborn = await openRaw(factory, 'legacy', 1); // an old tab without a versionchange handler
      const onClosed = vi.fn();
      const opening = openDatabase({ factory, name: 'legacy', version: 2, blockedTimeoutMs: 20, onClosed });
      await expect(opening).rejects.toMatchObject({ status: 503, code: 'storage_unavailable' });
      stubborn.close();
      // The abandoned open completes now; it must close itself rather than block the next upgrade.
      const next = await openRaw(factory, 'legacy', 3);
      expect(next.version).toBe(3);
      // Released on arrival, not merely closed later by v3's versionchange (which would report onClosed).
      expect(onClosed).not.toHaveBeenCalled();
      next.close();
    });
  });
});

/** A sweep that removed only responses. */
function sweepResult(expired: number, trimmed: number): SweepResult {
  return { expired, trimmed, expiredConversations: 0, trimmedConversations: 0 };
}
