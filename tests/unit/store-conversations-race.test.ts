// A metadata update racing a delete of the same conversation (issue 27, item 5): the delete wins
// for good. The update's existence check and its write are one store call (one IndexedDB
// transaction), so no interleaving of the two requests can put a deleted conversation back.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openIdbStore } from '../../src/store/index';
import { MemoryStore } from '../../src/store/memory-store';
import type { ResponseStore } from '../../src/store/types';
import { makeRig } from '../helpers/server';
import { makeConversation } from './fixtures/conversation-fixture';

/** Lets `n` microtasks pass: the route's own awaits are microtasks, so this walks the delete across them. */
async function microtasks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

const stores: [string, () => Promise<ResponseStore>][] = [
  ['IdbStore', () => openIdbStore({ indexedDB: new IDBFactory() })],
  ['MemoryStore', async () => new MemoryStore()],
];

describe.each(stores)('%s: a metadata update racing a delete', (_name, open) => {
  // The delete starts 0..119 microtasks after the update: before, inside and after the update's
  // read and write. The old route (read, then a separate write) put the conversation back for 7..102.
  it('the delete stays a delete at every interleaving', async () => {
    const resurrected: number[] = [];
    for (let delay = 0; delay < 120; delay++) {
      const store = await open();
      const { call } = makeRig({ store });
      await store.putConversation(makeConversation('conv_race'));
      const update = call('POST', '/conversations/conv_race', { metadata: { k: 'v' } });
      await microtasks(delay);
      const removed = await call('DELETE', '/conversations/conv_race');
      const updated = await update;
      expect(removed.status).toBe(200);
      expect([200, 404]).toContain(updated.status);
      // Gone from every read path, whichever request ran first.
      if (await store.getConversation('conv_race')) resurrected.push(delay);
      expect((await call('GET', '/conversations/conv_race')).status).toBe(404);
      // And the server still answers a normal request.
      expect((await call('POST', '/conversations', { metadata: { after: 'race' } })).status).toBe(200);
      store.close();
    }
    expect(resurrected).toEqual([]);
  });

  it('an update of a deleted conversation is a 404 that stores nothing', async () => {
    const store = await open();
    const { call } = makeRig({ store });
    await store.putConversation(makeConversation('conv_gone'));
    await store.deleteConversation('conv_gone');
    const res = await call('POST', '/conversations/conv_gone', { metadata: { k: 'v' } });
    expect(res.status).toBe(404);
    expect(await store.updateConversationMetadata('conv_gone', { k: 'v' })).toBeUndefined();
    expect(await store.getConversation('conv_gone')).toBeUndefined();
    store.close();
  });

  it('an update keeps the conversation otherwise as it was', async () => {
    const store = await open();
    await store.putConversation(makeConversation('conv_keep', { created_at: 42 }));
    const updated = await store.updateConversationMetadata('conv_keep', { a: 'b' });
    expect(updated).toEqual(makeConversation('conv_keep', { created_at: 42, metadata: { a: 'b' } }));
    expect(await store.getConversation('conv_keep')).toEqual(updated);
    store.close();
  });
});
