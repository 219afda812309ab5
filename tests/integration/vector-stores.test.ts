import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { TestFiles } from '../helpers/file-reader';
import { makeRig } from '../helpers/server';

const DOCS: Record<string, [string, string]> = {
  'file-solar': ['solar.txt', 'Solar panels on the roof turn sunlight into electricity for the house.'],
  'file-bread': ['bread.md', 'Knead the dough, let it rise overnight, then bake the bread in a hot oven.'],
  'file-whale': ['whales.txt', 'Blue whales sing low songs that travel far across the cold ocean.'],
};

function rig() {
  const files = new TestFiles(DOCS);
  return { files, ...makeRig({ readFile: files.reader }) };
}

/** The SDK's polling helpers, asked to poll fast (the server also sends `openai-poll-after-ms`). */
const FAST = { pollIntervalMs: 5 };

async function untilCompleted(client: OpenAI, id: string) {
  for (let i = 0; i < 400; i++) {
    const vs = await client.vectorStores.retrieve(id);
    if (vs.status !== 'in_progress') return vs;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the store stayed in_progress for 2 s');
}

describe('vector stores through the openai SDK', () => {
  it('create with file_ids indexes them in the background; the store goes in_progress → completed', async () => {
    const { client } = rig();
    const vs = await client.vectorStores.create({ name: 'docs', file_ids: ['file-solar', 'file-bread'] });
    expect(vs).toMatchObject({
      object: 'vector_store',
      name: 'docs',
      status: 'in_progress',
      file_counts: { in_progress: 2, completed: 0, failed: 0, cancelled: 0, total: 2 },
      metadata: {},
      expires_at: null,
    });
    expect(vs.id).toMatch(/^vs_[0-9a-f]{48}$/);
    const done = await untilCompleted(client, vs.id);
    expect(done.status).toBe('completed');
    expect(done.file_counts).toEqual({ in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 });
    expect(done.usage_bytes).toBeGreaterThan(0);
    const listed = await client.vectorStores.files.list(vs.id);
    expect(listed.data.map((f) => f.id).sort()).toEqual(['file-bread', 'file-solar']);
    expect(listed.data[0]).toMatchObject({
      object: 'vector_store.file',
      vector_store_id: vs.id,
      status: 'completed',
      last_error: null,
      chunking_strategy: {
        type: 'static',
        static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 },
      },
    });
  });

  it('files.createAndPoll and fileBatches.createAndPoll reach completed, with correct file_counts', async () => {
    const { client } = rig();
    const vs = await client.vectorStores.create({ name: 'poll' });
    const file = await client.vectorStores.files.createAndPoll(
      vs.id,
      { file_id: 'file-whale', attributes: { kind: 'animal' } },
      FAST,
    );
    expect(file).toMatchObject({ id: 'file-whale', status: 'completed', attributes: { kind: 'animal' } });
    const batch = await client.vectorStores.fileBatches.createAndPoll(
      vs.id,
      { file_ids: ['file-solar', 'file-bread'] },
      FAST,
    );
    expect(batch).toMatchObject({
      object: 'vector_store.files_batch',
      vector_store_id: vs.id,
      status: 'completed',
      file_counts: { in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 },
    });
    expect(batch.id).toMatch(/^vsfb_/);
    const inBatch = await client.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: vs.id });
    expect(inBatch.data.map((f) => f.id).sort()).toEqual(['file-bread', 'file-solar']);
    const store = await client.vectorStores.retrieve(vs.id);
    expect(store.file_counts).toEqual({ in_progress: 0, completed: 3, failed: 0, cancelled: 0, total: 3 });
  });

  it('createAndPoll with no poll interval of its own follows openai-poll-after-ms, not its 5 s default', async () => {
    const { client, call } = rig();
    const vs = await client.vectorStores.create({});
    // The tokenizer's first load is not what this measures: one file first.
    await client.vectorStores.files.createAndPoll(vs.id, { file_id: 'file-bread' }, FAST);
    const attached = await call('POST', `/vector_stores/${vs.id}/files`, { file_id: 'file-whale' });
    expect(attached.headers.get('openai-poll-after-ms')).toBe('100');
    // The SDK's poll sleeps are setTimeouts: record the waits it asks for instead of timing it.
    const waits: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      fn: () => void,
      ms?: number,
      ...rest: unknown[]
    ) => {
      waits.push(Number(ms ?? 0));
      return realSetTimeout(fn, ms, ...rest);
    }) as typeof setTimeout);
    let file: Awaited<ReturnType<typeof client.vectorStores.files.createAndPoll>>;
    try {
      file = await client.vectorStores.files.createAndPoll(vs.id, { file_id: 'file-solar' });
    } finally {
      spy.mockRestore();
    }
    expect(file.status).toBe('completed');
    // Polls 100 ms apart, as the header says; the SDK's own default waits 5000 ms before each re-read.
    expect(waits).not.toContain(5000);
    const done = await call('GET', `/vector_stores/${vs.id}/files/file-solar`);
    expect(done.headers.get('openai-poll-after-ms')).toBeNull();
  });

  it('search returns the chunk that holds the query words first, as a search results page', async () => {
    const { client, call } = rig();
    const vs = await client.vectorStores.create({ file_ids: Object.keys(DOCS) });
    await untilCompleted(client, vs.id);
    const page = await client.vectorStores.search(vs.id, { query: 'bake the bread dough' });
    const first = page.data[0];
    expect(first).toMatchObject({ file_id: 'file-bread', filename: 'bread.md', attributes: {} });
    expect(first?.content).toEqual([{ type: 'text', text: DOCS['file-bread']?.[1] }]);
    for (const hit of page.data) {
      expect(hit.score).toBeGreaterThanOrEqual(0);
      expect(hit.score).toBeLessThanOrEqual(1);
    }
    const raw = await (
      await call('POST', `/vector_stores/${vs.id}/search`, { query: 'blue whales', rewrite_query: true })
    ).json();
    expect(raw).toMatchObject({ object: 'vector_store.search_results.page', search_query: ['blue whales'] });
    expect(raw.has_more).toBe(false);
    expect(raw.data[0].file_id).toBe('file-whale');
  });

  it('max_num_results and score_threshold bound the results; ranker none/auto are accepted', async () => {
    const { client } = rig();
    const vs = await client.vectorStores.create({ file_ids: Object.keys(DOCS) });
    await untilCompleted(client, vs.id);
    const one = await client.vectorStores.search(vs.id, { query: 'solar roof', max_num_results: 1 });
    expect(one.data.map((h) => h.file_id)).toEqual(['file-solar']);
    const strict = await client.vectorStores.search(vs.id, {
      query: ['solar roof', 'blue whales'],
      ranking_options: { ranker: 'none', score_threshold: 0.3 },
    });
    expect(strict.data.length).toBeGreaterThan(0);
    for (const hit of strict.data) expect(hit.score).toBeGreaterThanOrEqual(0.3);
    expect(strict.data.map((h) => h.file_id).sort()).toEqual(['file-solar', 'file-whale']);
    await expect(
      client.vectorStores.search(vs.id, { query: 'x', max_num_results: 51 }),
    ).rejects.toMatchObject({ status: 400, param: 'max_num_results' });
  });

  it('failures end failed with last_error, never in_progress: binary, not UTF-8, empty', async () => {
    const { client, files } = rig();
    files.add('file-pdf', 'scan.pdf', new Uint8Array([0x25, 0x50, 0x44, 0x46]));
    files.add('file-latin1', 'old.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    files.add('file-empty', 'empty.txt', '   ');
    const vs = await client.vectorStores.create({ file_ids: ['file-pdf', 'file-latin1', 'file-empty'] });
    const done = await untilCompleted(client, vs.id);
    expect(done.file_counts).toMatchObject({ failed: 3, completed: 0, total: 3 });
    const byId = async (id: string) => client.vectorStores.files.retrieve(id, { vector_store_id: vs.id });
    expect((await byId('file-pdf')).last_error?.code).toBe('unsupported_file');
    expect((await byId('file-latin1')).last_error?.code).toBe('invalid_file');
    expect((await byId('file-empty')).last_error?.code).toBe('invalid_file');
    expect((await client.vectorStores.search(vs.id, { query: 'anything' })).data).toEqual([]);
  });

  it('unknown ids: a file is a 400 on the field that named it; a store, batch or attachment is a 404', async () => {
    const { client } = rig();
    await expect(client.vectorStores.create({ file_ids: ['file-solar', 'file-nope'] })).rejects.toMatchObject(
      { status: 400, param: 'file_ids[1]' },
    );
    expect((await client.vectorStores.list()).data).toEqual([]); // nothing half-created
    await expect(client.vectorStores.retrieve('vs_missing')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const vs = await client.vectorStores.create({});
    await expect(
      client.vectorStores.fileBatches.create(vs.id, { files: [{ file_id: 'file-nope' }] }),
    ).rejects.toMatchObject({ status: 400, param: 'files[0].file_id' });
    await expect(
      client.vectorStores.fileBatches.create(vs.id, {
        file_ids: ['file-solar'],
        files: [{ file_id: 'file-solar' }],
      }),
    ).rejects.toMatchObject({ status: 400, param: 'files' });
    await expect(
      client.vectorStores.fileBatches.retrieve('vsfb_x', { vector_store_id: vs.id }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      client.vectorStores.files.retrieve('file-solar', { vector_store_id: vs.id }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('update, list, file attributes update, file content, file delete and store delete', async () => {
    // A clock a second further at each read: creation order is then created_at order.
    let t = 1_700_000_000_000;
    const { client } = makeRig({ readFile: new TestFiles(DOCS).reader, now: () => (t += 1000) });
    const vs = await client.vectorStores.create({
      name: 'a',
      file_ids: ['file-solar'],
      expires_after: { anchor: 'last_active_at', days: 7 },
    });
    expect(vs.expires_after).toEqual({ anchor: 'last_active_at', days: 7 });
    expect(vs.expires_at).toBe((vs.last_active_at as number) + 7 * 86_400);
    await untilCompleted(client, vs.id);
    const renamed = await client.vectorStores.update(vs.id, { name: 'b', metadata: { team: 'x' } });
    expect(renamed).toMatchObject({ name: 'b', metadata: { team: 'x' } });
    const second = await client.vectorStores.create({ name: 'c' });
    const list = await client.vectorStores.list({ order: 'asc' });
    expect(list.data.map((s) => s.id)).toEqual([vs.id, second.id]);
    const file = await client.vectorStores.files.update('file-solar', {
      vector_store_id: vs.id,
      attributes: { year: 2024 },
    });
    expect(file.attributes).toEqual({ year: 2024 });
    const content = await client.vectorStores.files.content('file-solar', { vector_store_id: vs.id });
    expect(content.data).toEqual([{ type: 'text', text: DOCS['file-solar']?.[1] }]);
    const detached = await client.vectorStores.files.delete('file-solar', { vector_store_id: vs.id });
    expect(detached).toEqual({ id: 'file-solar', object: 'vector_store.file.deleted', deleted: true });
    expect((await client.vectorStores.retrieve(vs.id)).file_counts.total).toBe(0);
    expect((await client.vectorStores.search(vs.id, { query: 'solar' })).data).toEqual([]);
    expect(await client.vectorStores.delete(vs.id)).toEqual({
      id: vs.id,
      object: 'vector_store.deleted',
      deleted: true,
    });
    await expect(client.vectorStores.retrieve(vs.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.vectorStores.delete(vs.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('attributes past their bounds are 400s with param', async () => {
    const { client } = rig();
    const vs = await client.vectorStores.create({});
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i]));
    await expect(
      client.vectorStores.files.create(vs.id, { file_id: 'file-solar', attributes: tooMany }),
    ).rejects.toMatchObject({ status: 400, param: 'attributes' });
    await expect(
      client.vectorStores.files.create(vs.id, { file_id: 'file-solar', attributes: { k: 'x'.repeat(513) } }),
    ).rejects.toMatchObject({ status: 400, param: 'attributes.k' });
    await expect(
      client.vectorStores.files.create(vs.id, { file_id: 'file-solar', attributes: { ['k'.repeat(65)]: 1 } }),
    ).rejects.toMatchObject({ status: 400, param: 'attributes' });
  });

  it('a store built with one embedding model refuses a search by another, with a clear 400', async () => {
    const files = new TestFiles(DOCS);
    const { client, store } = makeRig({
      readFile: files.reader,
      vectorStores: { embeddingModel: 'scripted' },
    });
    const vs = await client.vectorStores.create({ file_ids: ['file-solar'] });
    await untilCompleted(client, vs.id);
    const other = makeRig({
      store,
      readFile: files.reader,
      vectorStores: { embeddingModel: 'other-embedder' },
    });
    const err = await other.client.vectorStores.search(vs.id, { query: 'solar' }).catch((e) => e);
    expect(err).toMatchObject({ status: 400, code: 'embedding_model_mismatch' });
    expect(err.message).toContain("'scripted'");
  });
});
