// Security point 4 of issue 22: deleting a file removes it from every vector store (chunks and
// vectors too), deleting a store deletes its chunks and vectors, and nothing deleted comes back,
// whenever the delete lands during the file's background indexing. The final write of an indexing
// run checks that its attachment is still there in the same transaction (one synchronous step in
// memory), so a delete ordered before it wins.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { openDatabase } from '../../src/store/idb-schema';
import { openIdbStore } from '../../src/store/index';
import { MemoryStore } from '../../src/store/memory-store';
import type { ResponseStore } from '../../src/store/types';
import type { StoredVectorStoreFile } from '../../src/store/vector-stores';
import { TestFiles } from '../helpers/file-reader';
import { makeRig } from '../helpers/server';

const TEXT = Array.from({ length: 300 }, (_, i) => `line ${i} of the shared manual about pumps`).join('\n');

type Opened = { store: ResponseStore; raw: (vsId: string) => Promise<number> };

const kinds: [string, () => Promise<Opened>][] = [
  [
    'IdbStore',
    async () => {
      const factory = new IDBFactory();
      const store = await openIdbStore({ indexedDB: factory });
      // A second connection counts the raw chunk and vector records, whatever the file records say.
      const db = await openDatabase({ factory });
      const raw = async (vsId: string) => {
        const range = IDBKeyRange.bound([vsId], [vsId, []]);
        return (await db.count('vector_chunks', range)) + (await db.count('vector_vectors', range));
      };
      return { store, raw };
    },
  ],
  [
    'MemoryStore',
    async () => {
      const store = new MemoryStore();
      const raw = async (vsId: string) => {
        const files = await store.vectorStores.listFiles(vsId);
        const chunks = await Promise.all(files.map((f) => store.vectorStores.readChunks(vsId, f.fileId)));
        return chunks.flat().length + ((await store.vectorStores.readIndex(vsId))?.files.length ?? 0);
      };
      return { store, raw };
    },
  ],
];

/**
 * Lets `turns` immediates and then `micro` microtasks pass. Immediates, not timers: fake-indexeddb
 * answers each request in one, so a timer would let a whole indexing run slip by at once.
 */
async function wait(turns: number, micro: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < micro; i++) await Promise.resolve();
}

/** Indexing runs one file at a time, in order: once a file queued later completes, every earlier run is over. */
async function barrier(client: OpenAI): Promise<void> {
  const vs = await client.vectorStores.create({});
  const file = await client.vectorStores.files.createAndPoll(
    vs.id,
    { file_id: 'file-late' },
    { pollIntervalMs: 1 },
  );
  expect(file.status).toBe('completed');
}

/** From before the attachment is written to after its run has finished (a few dozen immediates). */
const DELAYS: [number, number][] = [];
for (let turns = 0; turns < 45; turns += 3) for (const micro of [0, 7]) DELAYS.push([turns, micro]);

describe.each(kinds)('%s: deletes racing background indexing', (_name, open) => {
  it('a deleted store stays deleted, with no chunk or vector left, at every interleaving', async () => {
    // Through the route (which also stops the run) and through the store alone (where only the final
    // write's own check stands between the run and a store brought back).
    for (const [i, [turns, micro]] of [...DELAYS, ...DELAYS].entries()) {
      const direct = i >= DELAYS.length;
      const { store, raw } = await open();
      const files = new TestFiles({ 'file-a': ['a.txt', TEXT], 'file-late': ['late.txt', 'late'] });
      const { client, call } = makeRig({ store, readFile: files.reader });
      const vs = await client.vectorStores.create({});
      const attach = call('POST', `/vector_stores/${vs.id}/files`, { file_id: 'file-a' });
      await wait(turns, micro);
      if (direct) expect(await store.vectorStores?.deleteStore(vs.id)).toBe(true);
      else expect((await call('DELETE', `/vector_stores/${vs.id}`)).status).toBe(200);
      expect([200, 404]).toContain((await attach).status);
      await barrier(client);
      expect((await call('GET', `/vector_stores/${vs.id}`)).status).toBe(404);
      expect(await store.vectorStores?.getFile(vs.id, 'file-a')).toBeUndefined();
      expect(await raw(vs.id)).toBe(0);
    }
  });

  it('forgetFile removes the file from every store, counts follow, and it never comes back', async () => {
    for (const [turns, micro] of DELAYS) {
      const { store, raw } = await open();
      const files = new TestFiles({
        'file-a': ['a.txt', TEXT],
        'file-b': ['b.txt', 'other pumps'],
        'file-late': ['late.txt', 'late'],
      });
      const { client } = makeRig({ store, readFile: files.reader });
      const one = await client.vectorStores.create({ file_ids: ['file-a', 'file-b'] });
      const two = await client.vectorStores.create({ file_ids: ['file-a'] });
      await wait(turns, micro);
      const removedFrom = await store.vectorStores?.forgetFile('file-a');
      expect(removedFrom).toBe(2);
      await barrier(client);
      for (const id of [one.id, two.id]) {
        expect(await store.vectorStores?.getFile(id, 'file-a')).toBeUndefined();
        const page = await client.vectorStores.search(id, {
          query: 'shared manual about pumps',
          max_num_results: 50,
        });
        expect(page.data.filter((h) => h.file_id === 'file-a')).toEqual([]);
      }
      const counts = (await client.vectorStores.retrieve(one.id)).file_counts;
      expect(counts).toEqual({ in_progress: 0, completed: 1, failed: 0, cancelled: 0, total: 1 });
      expect((await client.vectorStores.retrieve(two.id)).file_counts.total).toBe(0);
      expect(await raw(two.id)).toBe(0);
    }
  });

  it('a detached file stays detached; a cancelled batch is never indexed', async () => {
    for (const [turns, micro] of DELAYS.slice(0, 9)) {
      const { store, raw } = await open();
      const files = new TestFiles({ 'file-a': ['a.txt', TEXT], 'file-late': ['late.txt', 'late'] });
      const { client } = makeRig({ store, readFile: files.reader });
      const vs = await client.vectorStores.create({});
      await client.vectorStores.files.create(vs.id, { file_id: 'file-a' });
      await wait(turns, micro);
      await client.vectorStores.files.delete('file-a', { vector_store_id: vs.id });
      const batch = await client.vectorStores.fileBatches.create(vs.id, { file_ids: ['file-late'] });
      const cancelled = await client.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: vs.id });
      await barrier(client);
      expect(await store.vectorStores?.getFile(vs.id, 'file-a')).toBeUndefined();
      const after = await client.vectorStores.fileBatches.retrieve(batch.id, { vector_store_id: vs.id });
      // Cancelled before its run wrote: the file stays cancelled, nothing of it searchable.
      expect(cancelled.status).toBe('cancelled');
      expect(after.file_counts.completed + after.file_counts.cancelled).toBe(1);
      if (after.file_counts.cancelled === 1) expect(await raw(vs.id)).toBe(0);
    }
  });
});

/** An attachment as a stopped runtime left it: `in_progress`, with `runsStarted` runs begun on it. */
function leftOver(vectorStoreId: string, runsStarted?: number): StoredVectorStoreFile {
  return {
    vectorStoreId,
    fileId: 'file-a',
    created_at: 1,
    status: 'in_progress',
    last_error: null,
    usage_bytes: 0,
    attributes: null,
    chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } },
    filename: 'a.txt',
    batchId: null,
    attempt: 'left-over',
    ...(runsStarted === undefined ? {} : { runsStarted }),
  };
}

describe.each(kinds)('%s: indexing left unfinished by a stopped runtime', (_name, open) => {
  it('recover() queues again the in_progress files no run had started on, and they complete', async () => {
    const { store } = await open();
    const files = new TestFiles({ 'file-a': ['a.txt', 'pumps and valves'] });
    // The first runtime attaches the file but stops before its run: its store write happened, its
    // queue is lost.
    const stopped = makeRig({ store, readFile: files.reader, vectorStores: { embeddingModel: 'scripted' } });
    const vs = await stopped.client.vectorStores.create({});
    await store.vectorStores?.addFiles(vs.id, [leftOver(vs.id)]);
    const next = makeRig({ store, readFile: files.reader });
    await next.server.recover();
    const file = await next.client.vectorStores.files.poll(vs.id, 'file-a', { pollIntervalMs: 5 });
    expect(file.status).toBe('completed');
    expect((await next.client.vectorStores.search(vs.id, { query: 'valves' })).data[0]?.file_id).toBe(
      'file-a',
    );
    // The run counted itself before its work.
    expect((await store.vectorStores?.getFile(vs.id, 'file-a'))?.runsStarted).toBe(1);
  });

  // Issue 43: a file that froze the engine until the watchdog restarted its worker was indexed
  // again by the new worker's start-up, and froze it again, at every page load.
  it('a file whose run had started (and never ended) is failed, not indexed again', async () => {
    const { store } = await open();
    const files = new TestFiles({ 'file-a': ['a.txt', 'pumps and valves'] });
    const first = makeRig({ store, readFile: files.reader, vectorStores: { embeddingModel: 'scripted' } });
    const vs = await first.client.vectorStores.create({});
    await store.vectorStores?.addFiles(vs.id, [leftOver(vs.id, 1)]);
    const next = makeRig({ store, readFile: files.reader });
    await next.server.recover();
    const file = await next.client.vectorStores.files.poll(vs.id, 'file-a', { pollIntervalMs: 5 });
    expect(file.status).toBe('failed');
    expect(file.last_error?.code).toBe('server_error');
    expect(file.last_error?.message).toMatch(/^Indexing was interrupted/);
    expect(files.reads.get('file-a')).toBeUndefined(); // never read, so never chunked
  });
});

describe('an index that cannot be stored', () => {
  it('ends the file failed with server_error, never in_progress', async () => {
    const store = new MemoryStore();
    const vs = store.vectorStores;
    const finish = vs.finishFile.bind(vs);
    // The first (big) write fails as a full disk would; the small failed-status write goes through.
    vs.finishFile = async (id, fileId, attempt, outcome) => {
      if (outcome.ok)
        throw new ApiError(507, 'server_error', 'storage_quota_exceeded', null, 'The disk is full.');
      return finish(id, fileId, attempt, outcome);
    };
    const { client } = makeRig({ store, readFile: new TestFiles({ 'file-a': ['a.txt', 'pumps'] }).reader });
    const created = await client.vectorStores.create({});
    const file = await client.vectorStores.files.createAndPoll(
      created.id,
      { file_id: 'file-a' },
      { pollIntervalMs: 5 },
    );
    expect(file.status).toBe('failed');
    expect(file.last_error).toEqual({
      code: 'server_error',
      message: 'The index could not be stored: The disk is full.',
    });
  });
});
