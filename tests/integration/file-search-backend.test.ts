import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { MemoryStore } from '../../src/store/memory-store';
import { TestFiles } from '../helpers/file-reader';
import { realFileSearch } from '../helpers/file-search-backend';
import { makeRig } from '../helpers/server';

const DOCS: Record<string, [string, string]> = {
  'file-pump': ['pump.txt', 'The pump pushes water uphill through the green pipe.'],
  'file-valve': ['valve.txt', 'Close the valve before you open the water pipe.'],
  'file-song': ['song.txt', 'A quiet song about mountains and snow.'],
};

/** Two stores over one MemoryStore, built through the SDK, and a backend over the same storage. */
async function setup() {
  const store = new MemoryStore();
  const files = new TestFiles(DOCS);
  // Vectors (scripted's hashed bag of words): these tests rank by cosine and fuse with BM25.
  const vectorStores = { embeddingModel: 'scripted' };
  const { client } = makeRig({ store, readFile: files.reader, vectorStores });
  const a = await client.vectorStores.create({});
  await client.vectorStores.fileBatches.createAndPoll(
    a.id,
    {
      files: [
        { file_id: 'file-pump', attributes: { area: 'plant' } },
        { file_id: 'file-song', attributes: { area: 'music' } },
      ],
    },
    { pollIntervalMs: 5 },
  );
  const b = await client.vectorStores.create({});
  await client.vectorStores.files.createAndPoll(
    b.id,
    { file_id: 'file-valve', attributes: { area: 'plant' } },
    { pollIntervalMs: 5 },
  );
  return {
    client,
    store,
    a: a.id,
    b: b.id,
    backend: realFileSearch({ store, readFile: files.reader, vectorStores }),
  };
}

describe('createFileSearchBackend (the file_search tool’s view of the stores)', () => {
  it('checkStores: an unknown id is a 400 on the tool’s param; known ids pass', async () => {
    const { backend, a, b } = await setup();
    await expect(backend.checkStores([a, b], 'tools[0].vector_store_ids')).resolves.toBeUndefined();
    const err = await backend.checkStores([a, 'vs_nope'], 'tools[0].vector_store_ids').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, param: 'tools[0].vector_store_ids' });
    expect(err.message).toContain('vs_nope');
  });

  it('searches several stores and queries at once, best first, bounded by maxNumResults', async () => {
    const { backend, a, b } = await setup();
    const hits = await backend.search({
      vectorStoreIds: [a, b],
      queries: ['close the valve', 'quiet mountains song'],
      maxNumResults: 2,
    });
    expect(hits.map((h) => h.file_id).sort()).toEqual(['file-song', 'file-valve']);
    expect(hits[0]?.score).toBeGreaterThanOrEqual(hits[1]?.score ?? 0);
    expect(hits.find((h) => h.file_id === 'file-valve')).toMatchObject({
      filename: 'valve.txt',
      text: DOCS['file-valve']?.[1],
      attributes: { area: 'plant' },
    });
  });

  it('filters, score_threshold and hybrid_search (scores stay in [0, 1])', async () => {
    const { backend, a, b } = await setup();
    const plant = await backend.search({
      vectorStoreIds: [a, b],
      queries: ['water pipe'],
      maxNumResults: 10,
      filters: { key: 'area', type: 'eq', value: 'plant' },
    });
    expect(plant.map((h) => h.file_id).sort()).toEqual(['file-pump', 'file-valve']);
    const none = await backend.search({
      vectorStoreIds: [a],
      queries: ['water pipe'],
      maxNumResults: 10,
      rankingOptions: { score_threshold: 1 },
    });
    expect(none).toEqual([]);
    const hybrid = await backend.search({
      vectorStoreIds: [a, b],
      queries: ['uphill pump'],
      maxNumResults: 3,
      rankingOptions: { hybrid_search: { embedding_weight: 0.5, text_weight: 0.5 } },
    });
    expect(hybrid[0]?.file_id).toBe('file-pump');
    expect(hybrid[0]?.score).toBeCloseTo(1, 6); // first in both rankings
    for (const h of hybrid) {
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
  });

  it('keeps a store’s vectors in memory between searches until the store changes', async () => {
    const { backend, store, client, a } = await setup();
    const readIndex = vi.spyOn(store.vectorStores, 'readIndex');
    const q = { vectorStoreIds: [a], queries: ['pump'], maxNumResults: 5 };
    await backend.search(q);
    await backend.search(q);
    expect(readIndex).toHaveBeenCalledTimes(1);
    await client.vectorStores.files.update('file-song', { vector_store_id: a, attributes: { area: 'x' } });
    const after = await backend.search({
      ...q,
      filters: { key: 'area', type: 'eq', value: 'x' },
      queries: ['song'],
    });
    expect(readIndex).toHaveBeenCalledTimes(2);
    expect(after.map((h) => h.file_id)).toEqual(['file-song']);
  });

  it('an aborted signal stops the search', async () => {
    const { backend, a } = await setup();
    const abort = new AbortController();
    abort.abort();
    await expect(
      backend.search({ vectorStoreIds: [a], queries: ['pump'], maxNumResults: 5, signal: abort.signal }),
    ).rejects.toThrow();
  });
});

describe('queries the model wrote', () => {
  it('blank ones are dropped and the rest bounded, never a failure', async () => {
    const { backend, a } = await setup();
    const many = ['', '   ', ...Array.from({ length: 30 }, () => `uphill pump ${'x'.repeat(10_000)}`)];
    const hits = await backend.search({ vectorStoreIds: [a], queries: many, maxNumResults: 3 });
    expect(hits[0]?.file_id).toBe('file-pump');
    expect(await backend.search({ vectorStoreIds: [a], queries: ['', ' '], maxNumResults: 3 })).toEqual([]);
  });
});
