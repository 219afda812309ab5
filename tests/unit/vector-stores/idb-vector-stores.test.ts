import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/idb-schema';
import { openIdbStore } from '../../../src/store/index';
import type { StoredVectorStore, StoredVectorStoreFile } from '../../../src/store/vector-stores';

const store = (id: string): StoredVectorStore => ({
  id,
  created_at: 1,
  name: id,
  description: null,
  metadata: {},
  expires_after: null,
  last_active_at: 1,
  embedding: { model: 'scripted', dimensions: null },
  revision: 0,
});
const file = (
  vectorStoreId: string,
  fileId: string,
  batchId: string | null = null,
): StoredVectorStoreFile => ({
  vectorStoreId,
  fileId,
  created_at: 1,
  status: 'in_progress',
  last_error: null,
  usage_bytes: 0,
  attributes: null,
  chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } },
  filename: `${fileId}.txt`,
  batchId,
  attempt: `${vectorStoreId}/${fileId}`,
});
const vectors = (rows: number[][]) => ({
  dimensions: rows[0]?.length ?? 0,
  data: new Float32Array(rows.flat()).buffer as ArrayBuffer,
});

describe('IdbVectorStores (schema version 3)', () => {
  it('upgrades a version-2 database in place, keeping its data, with the vector stores added', async () => {
    const factory = new IDBFactory();
    const v2 = await openDatabase({ factory, version: 2 });
    await v2.put('conversations', {
      conversation: { id: 'conv_1', object: 'conversation', created_at: 1, metadata: {} },
      expiresAt: null,
    });
    v2.close();
    const idb = await openIdbStore({ indexedDB: factory });
    expect(await idb.getConversation('conv_1')).toMatchObject({ id: 'conv_1' });
    await idb.vectorStores.putStore(store('vs_1'));
    expect(await idb.vectorStores.getStore('vs_1')).toEqual(store('vs_1'));
    idb.close();
  });

  it('indexes a file atomically, keeps vectors as one ArrayBuffer, and deletes a store with everything in it', async () => {
    const idb = await openIdbStore({ indexedDB: new IDBFactory() });
    const vs = idb.vectorStores;
    await vs.putStore(store('vs_1'));
    await vs.putStore(store('vs_2'));
    await vs.addFiles('vs_1', [file('vs_1', 'file-a'), file('vs_1', 'file-b', 'vsfb_1')], {
      id: 'vsfb_1',
      vectorStoreId: 'vs_1',
      created_at: 1,
      cancelled: false,
    });
    await vs.addFiles('vs_2', [file('vs_2', 'file-a')]);
    // The wrong attempt writes nothing.
    expect(
      await vs.finishFile('vs_1', 'file-a', 'stale', {
        ok: true,
        chunks: ['x'],
        vectors: vectors([[1, 0]]),
        usageBytes: 9,
      }),
    ).toBe(false);
    expect(await vs.readChunks('vs_1', 'file-a')).toEqual([]);
    const ok = {
      ok: true as const,
      chunks: ['one', 'two'],
      vectors: vectors([
        [1, 0],
        [0, 1],
      ]),
      usageBytes: 22,
    };
    expect(await vs.finishFile('vs_1', 'file-a', 'vs_1/file-a', ok)).toBe(true);
    expect(await vs.finishFile('vs_2', 'file-a', 'vs_2/file-a', ok)).toBe(true);
    const index = await vs.readIndex('vs_1');
    expect(index?.store.embedding.dimensions).toBe(2);
    expect(index?.files.map((f) => [f.file.fileId, f.chunks])).toEqual([['file-a', ['one', 'two']]]);
    expect([...new Float32Array(index?.files[0]?.vectors.data as ArrayBuffer)]).toEqual([1, 0, 0, 1]);
    // Cancelling the batch cancels its unfinished file only.
    await vs.cancelBatch('vs_1', 'vsfb_1');
    expect((await vs.getFile('vs_1', 'file-b'))?.status).toBe('cancelled');
    expect((await vs.getFile('vs_1', 'file-a'))?.status).toBe('completed');
    // forgetFile: out of both stores, each store's revision moved on.
    const before = (await vs.getStore('vs_2'))?.revision ?? 0;
    expect(await vs.forgetFile('file-a')).toBe(2);
    expect((await vs.getStore('vs_2'))?.revision).toBeGreaterThan(before);
    expect(await vs.readChunks('vs_2', 'file-a')).toEqual([]);
    expect((await vs.readIndex('vs_2'))?.files).toEqual([]);
    expect(await vs.deleteStore('vs_1')).toBe(true);
    expect(await vs.deleteStore('vs_1')).toBe(false);
    expect(await vs.listFiles('vs_1')).toEqual([]);
    expect(await vs.getBatch('vs_1', 'vsfb_1')).toBeUndefined();
    expect(await vs.readIndex('vs_1')).toBeUndefined();
    expect((await vs.listStores()).map((s) => s.id)).toEqual(['vs_2']);
    idb.close();
  });
});
