// A file deleted while it is being read, listed and swept (issue 22, security point 4): whichever
// request runs first, a content read sees the whole file or a 404 (never metadata without bytes),
// and once the DELETE has answered nothing of the file comes back on any route.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import type { FileObject } from 'openai/resources/files';
import { describe, expect, it } from 'vitest';
import { openIdbStore } from '../../src/store/index';
import { MemoryStore } from '../../src/store/memory-store';
import type { ResponseStore } from '../../src/store/types';
import { makeRig } from '../helpers/server';

async function microtasks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

const stores: [string, () => Promise<ResponseStore>][] = [
  ['IdbStore', () => openIdbStore({ indexedDB: new IDBFactory() })],
  ['MemoryStore', async () => new MemoryStore()],
];

const BYTES = new TextEncoder().encode('the whole file, never half of it');

describe.each(stores)('%s: a file deleted during reads, lists and a sweep', (_name, open) => {
  it('the delete stays a delete at every interleaving', async () => {
    const resurrected: number[] = [];
    for (let delay = 0; delay < 80; delay++) {
      const store = await open();
      const { call } = makeRig({ store });
      const file = {
        id: 'file-race',
        object: 'file',
        bytes: BYTES.length,
        created_at: 1,
        filename: 'r.txt',
        purpose: 'user_data',
        status: 'processed',
      } as FileObject;
      await store.files?.put({ file, mimeType: 'text/plain', expiresAt: null }, BYTES);
      const content = call('GET', '/files/file-race/content');
      const listed = call('GET', '/files');
      const swept = store.sweep?.();
      await microtasks(delay);
      const removed = await call('DELETE', '/files/file-race');
      expect(removed.status).toBe(200);
      const read = await content;
      expect([200, 404]).toContain(read.status);
      if (read.status === 200) expect(new Uint8Array(await read.arrayBuffer())).toEqual(BYTES);
      expect((await listed).status).toBe(200);
      await swept;
      for (const path of ['/files/file-race', '/files/file-race/content']) {
        if ((await call('GET', path)).status !== 404) resurrected.push(delay);
      }
      if ((await (await call('GET', '/files')).json()).data.length > 0) resurrected.push(delay);
      if (await store.files?.read('file-race')) resurrected.push(delay);
      store.close();
    }
    expect(resurrected).toEqual([]);
  });
});
