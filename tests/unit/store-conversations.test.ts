// idb looks up IDBRequest, IDBTransaction, IDBKeyRange… as globals; every test still gets its own
// IDBFactory so no state leaks between cases.
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idsOf, makeConversation, makeConversationItems } from './fixtures/conversation-fixture';
import { makeStoredResponse } from './fixtures/response-fixture';
import { type SweepingStore, storeImplementations } from './fixtures/store-harness';

afterEach(() => vi.restoreAllMocks());

describe.each(storeImplementations)('ResponseStore conversations: $name', ({ open }) => {
  let store: SweepingStore;
  let clock: number;
  const now = () => clock;
  beforeEach(async () => {
    clock = 1_000_000;
    store = await open({ now });
  });
  afterEach(() => store.close());

  /** Every item id of a conversation, oldest first, in one page. */
  async function allIds(conversationId: string): Promise<(string | undefined)[]> {
    const page = await store.listConversationItems(conversationId, { limit: 1000, order: 'asc' });
    return idsOf(page.data);
  }

  it('puts, gets, updates and deletes a conversation', async () => {
    await store.putConversation(makeConversation('conv_a'));
    const got = await store.getConversation('conv_a');
    expect(got).toEqual(makeConversation('conv_a'));
    if (!got) throw new Error('unreachable');
    got.metadata = { mutated: 'yes' };
    expect(await store.getConversation('conv_a')).toEqual(makeConversation('conv_a'));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 2));

    await store.putConversation(makeConversation('conv_a', { metadata: { topic: 'renamed' } }));
    expect((await store.getConversation('conv_a'))?.metadata).toEqual({ topic: 'renamed' });
    expect(await allIds('conv_a')).toEqual(['msg_a_0', 'msg_a_1']); // an update keeps the items

    expect(await store.deleteConversation('conv_a')).toBe(true);
    expect(await store.getConversation('conv_a')).toBeUndefined();
    expect(await store.deleteConversation('conv_a')).toBe(false);
    expect(await store.getConversation('conv_missing')).toBeUndefined();
  });

  it('appends in order and lists asc and desc in pages with after and hasMore', async () => {
    await store.putConversation(makeConversation('conv_a'));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 3));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 3, 2));
    await store.appendConversationItems('conv_a', []);
    const pages = async (order: 'asc' | 'desc') => {
      const seen: [(string | undefined)[], boolean][] = [];
      let after: string | undefined;
      for (let more = true; more; ) {
        const page = await store.listConversationItems('conv_a', { limit: 2, order, after });
        seen.push([idsOf(page.data), page.hasMore]);
        after = page.data.at(-1)?.id;
        more = page.hasMore;
      }
      return seen;
    };
    expect(await pages('asc')).toEqual([
      [['msg_a_0', 'msg_a_1'], true],
      [['msg_a_2', 'msg_a_3'], true],
      [['msg_a_4'], false],
    ]);
    expect(await pages('desc')).toEqual([
      [['msg_a_4', 'msg_a_3'], true],
      [['msg_a_2', 'msg_a_1'], true],
      [['msg_a_0'], false],
    ]);
    // A page that ends exactly at the last item has nothing more.
    const exact = await store.listConversationItems('conv_a', { limit: 2, order: 'asc', after: 'msg_a_2' });
    expect([idsOf(exact.data), exact.hasMore]).toEqual([['msg_a_3', 'msg_a_4'], false]);
    const first = await store.listConversationItems('conv_a', { limit: 10, order: 'desc', after: 'msg_a_0' });
    expect(first).toEqual({ data: [], hasMore: false });
    const full = await store.listConversationItems('conv_a', { limit: 5, order: 'asc' });
    expect(full.data).toEqual(makeConversationItems('a', 0, 5));
  });

  it('keeps two concurrent appends whole: 20 items, each batch contiguous and in order', async () => {
    await store.putConversation(makeConversation('conv_a'));
    await Promise.all([
      store.appendConversationItems('conv_a', makeConversationItems('x', 0, 10)),
      store.appendConversationItems('conv_a', makeConversationItems('y', 0, 10)),
    ]);
    const ids = await allIds('conv_a');
    const xs = idsOf(makeConversationItems('x', 0, 10));
    const ys = idsOf(makeConversationItems('y', 0, 10));
    expect(ids).toHaveLength(20);
    expect([
      [...xs, ...ys],
      [...ys, ...xs],
    ]).toContainEqual(ids);
  });

  it('rejects appends and lists for an unknown conversation, and an unknown cursor, with 404', async () => {
    const append = store.appendConversationItems('conv_missing', makeConversationItems('a', 0, 1));
    await expect(append).rejects.toMatchObject({ status: 404, param: 'conversation_id' });
    await expect(
      store.listConversationItems('conv_missing', { limit: 10, order: 'asc' }),
    ).rejects.toMatchObject({ status: 404, param: 'conversation_id' });
    await store.putConversation(makeConversation('conv_a'));
    expect(await allIds('conv_a')).toEqual([]); // the failed append stored nothing anywhere
    await expect(
      store.listConversationItems('conv_a', { limit: 10, order: 'asc', after: 'msg_nope' }),
    ).rejects.toMatchObject({ status: 404, param: 'after' });
  });

  it('rejects a batch with an id already in the conversation, storing none of it', async () => {
    await store.putConversation(makeConversation('conv_a'));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 2));
    const clash = [...makeConversationItems('a', 2, 1), ...makeConversationItems('a', 1, 1)];
    await expect(store.appendConversationItems('conv_a', clash)).rejects.toMatchObject({
      status: 400,
      code: 'duplicate_item',
      message: expect.stringContaining("'msg_a_1'"),
    });
    const twice = [...makeConversationItems('a', 5, 1), ...makeConversationItems('a', 5, 1)];
    await expect(store.appendConversationItems('conv_a', twice)).rejects.toMatchObject({ status: 400 });
    expect(await allIds('conv_a')).toEqual(['msg_a_0', 'msg_a_1']);
  });

  it('gets and deletes one item of one conversation', async () => {
    await store.putConversation(makeConversation('conv_a'));
    await store.putConversation(makeConversation('conv_b'));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 3));
    await store.appendConversationItems('conv_b', makeConversationItems('b', 0, 1));
    expect(await store.getConversationItem('conv_a', 'msg_a_1')).toEqual(makeConversationItems('a', 1, 1)[0]);
    expect(await store.getConversationItem('conv_b', 'msg_a_1')).toBeUndefined();
    expect(await store.deleteConversationItem('conv_b', 'msg_a_1')).toBe(false);
    expect(await store.deleteConversationItem('conv_a', 'msg_a_1')).toBe(true);
    expect(await store.deleteConversationItem('conv_a', 'msg_a_1')).toBe(false);
    expect(await store.getConversationItem('conv_a', 'msg_a_1')).toBeUndefined();
    expect(await store.findItem('msg_a_1')).toBeUndefined();
    await store.appendConversationItems('conv_a', makeConversationItems('a', 3, 1));
    expect(await allIds('conv_a')).toEqual(['msg_a_0', 'msg_a_2', 'msg_a_3']);
    expect(await store.deleteConversationItem('conv_missing', 'msg_a_0')).toBe(false);
  });

  it('deletes a conversation with all its items, and no other conversation’s', async () => {
    await store.putConversation(makeConversation('conv_a'));
    await store.putConversation(makeConversation('conv_b'));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 3));
    await store.appendConversationItems('conv_b', makeConversationItems('b', 0, 2));
    expect(await store.deleteConversation('conv_a')).toBe(true);
    expect(await store.findItem('msg_a_0')).toBeUndefined();
    expect(await store.getConversationItem('conv_a', 'msg_a_0')).toBeUndefined();
    await store.putConversation(makeConversation('conv_a')); // the same id starts empty
    expect(await allIds('conv_a')).toEqual([]);
    expect(await allIds('conv_b')).toEqual(['msg_b_0', 'msg_b_1']);
    expect(await store.findItem('msg_b_1')).toEqual(makeConversationItems('b', 1, 1)[0]);
  });

  it('finds response input and output items and conversation items, until their owner goes', async () => {
    const first = makeStoredResponse('resp_a');
    await store.putResponse(first);
    // resp_b carries resp_a's turn as history, as a previous_response_id chain stores it.
    const second = makeStoredResponse('resp_b');
    second.inputItems = [...first.inputItems, ...(first.response.output as typeof first.inputItems)];
    await store.putResponse(second);
    await store.putConversation(makeConversation('conv_a'));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 1));

    expect(await store.findItem('msg_in_resp_a')).toEqual(first.inputItems[0]);
    expect(await store.findItem('msg_resp_b')).toEqual(second.response.output[0]);
    expect(await store.findItem('msg_a_0')).toEqual(makeConversationItems('a', 0, 1)[0]);
    expect(await store.findItem('msg_unknown')).toBeUndefined();

    // resp_a's items live on in resp_b's history; resp_b's own items go with it.
    expect(await store.deleteResponse('resp_a')).toBe(true);
    expect(await store.findItem('msg_in_resp_a')).toEqual(first.inputItems[0]);
    expect(await store.deleteResponse('resp_b')).toBe(true);
    expect(await store.findItem('msg_in_resp_a')).toBeUndefined();
    expect(await store.findItem('msg_resp_a')).toBeUndefined();
    expect(await store.findItem('msg_resp_b')).toBeUndefined();
  });

  it('forgets the items a replaced response no longer has', async () => {
    await store.putResponse(makeStoredResponse('resp_a'));
    await store.putResponse(makeStoredResponse('resp_a', { output: [] }));
    expect(await store.findItem('msg_resp_a')).toBeUndefined();
    expect(await store.findItem('msg_in_resp_a')).toBeDefined();
  });

  it('expires conversations with the TTL, keeping the deadline across updates, and sweeps them', async () => {
    store = await open({ now, ttlMs: 60_000 });
    await store.putConversation(makeConversation('conv_old'));
    await store.appendConversationItems('conv_old', makeConversationItems('old', 0, 2));
    clock += 30_000;
    await store.putConversation(makeConversation('conv_old', { metadata: { touched: 'yes' } }));
    await store.putConversation(makeConversation('conv_new'));
    clock = 1_060_000;
    expect(await store.getConversation('conv_old')).toBeDefined(); // expired only *after* the deadline
    clock = 1_060_001;
    expect(await store.getConversation('conv_old')).toBeUndefined();
    expect(await store.getConversationItem('conv_old', 'msg_old_0')).toBeUndefined();
    expect(await store.findItem('msg_old_0')).toBeUndefined();
    await expect(
      store.appendConversationItems('conv_old', makeConversationItems('old', 2, 1)),
    ).rejects.toMatchObject({ status: 404 });
    expect(await store.sweep()).toEqual({
      expired: 0,
      trimmed: 0,
      expiredConversations: 1,
      trimmedConversations: 0,
    });
    expect(await store.deleteConversation('conv_old')).toBe(false);
    expect(await store.getConversation('conv_new')).toBeDefined();
  });

  it('treats an expired, unswept owner as gone: no items found, a reused id starts empty', async () => {
    store = await open({ now, ttlMs: 60_000 });
    await store.putResponse(makeStoredResponse('resp_a'));
    await store.putConversation(makeConversation('conv_a'));
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 2));
    expect(await store.findItem('msg_in_resp_a')).toBeDefined();
    clock += 60_001;
    expect(await store.findItem('msg_in_resp_a')).toBeUndefined();
    expect(await store.findItem('msg_resp_a')).toBeUndefined();
    await store.putConversation(makeConversation('conv_a'));
    expect(await allIds('conv_a')).toEqual([]);
    expect(await store.findItem('msg_a_0')).toBeUndefined();
    await store.appendConversationItems('conv_a', makeConversationItems('a', 0, 1)); // ids are free again
    expect(await allIds('conv_a')).toEqual(['msg_a_0']);
  });

  it('trims to maxConversations, oldest created_at first, with their items', async () => {
    store = await open({ now, maxConversations: 2 });
    for (const [id, created] of [
      ['c3', 30],
      ['c1', 10],
      ['c4', 40],
      ['c2', 20],
    ] as const) {
      await store.putConversation(makeConversation(id, { created_at: created }));
      await store.appendConversationItems(id, makeConversationItems(id, 0, 1));
    }
    const result = await store.sweep();
    expect(result).toMatchObject({ expiredConversations: 0, trimmedConversations: 2 });
    const left = await Promise.all(['c1', 'c2', 'c3', 'c4'].map((id) => store.getConversation(id)));
    expect(left.map((c) => c?.id)).toEqual([undefined, undefined, 'c3', 'c4']);
    expect(await store.findItem('msg_c1_0')).toBeUndefined();
    expect(await store.findItem('msg_c4_0')).toBeDefined();
  });
});
