import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeConversation } from './fixtures/conversation-fixture';
import { makeStoredResponse } from './fixtures/response-fixture';
import { type SweepingStore, storeImplementations } from './fixtures/store-harness';

describe.each(storeImplementations)('ResponseStore listings: $name', ({ open }) => {
  let store: SweepingStore;
  let clock: number;
  beforeEach(async () => {
    clock = 1_000_000;
    store = await open({ now: () => clock, ttlMs: 1000 });
  });
  afterEach(() => store.close());

  it('lists the newest responses and conversations first, up to the limit, skipping expired ones', async () => {
    for (let i = 0; i < 4; i++)
      await store.putResponse(makeStoredResponse(`resp_${i}`, { created_at: 100 + i }));
    await store.putConversation(makeConversation('conv_old', { created_at: 5 }));
    await store.putConversation(makeConversation('conv_new', { created_at: 9 }));
    const recent = await store.listRecent(3);
    expect(recent.responses.map((r) => r.id)).toEqual(['resp_3', 'resp_2', 'resp_1']);
    expect(recent.conversations.map((c) => c.id)).toEqual(['conv_new', 'conv_old']);
    clock += 2000;
    expect(await store.listRecent(10)).toEqual({ responses: [], conversations: [] });
  });

  it('lists only queued and in_progress responses as unfinished', async () => {
    await store.putResponse(makeStoredResponse('resp_done', { status: 'completed' }));
    await store.putResponse(makeStoredResponse('resp_run', { status: 'in_progress' }));
    await store.putResponse(makeStoredResponse('resp_wait', { status: 'queued' }));
    const ids = (await store.listUnfinished()).map((r) => r.response.id).sort();
    expect(ids).toEqual(['resp_run', 'resp_wait']);
  });
});
