/**
 * Issue 35: file_search with no download. With no embedding model that runs without a download, a
 * vector store is lexical: every file is indexed (chunks, BM25) and searched, and says so; a
 * configured model that cannot run leaves its files lexical rather than failed. And the numbers:
 * recall@10 of the lexical index against the hybrid one (vectors + BM25) on a corpus made here.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store';
import { TestFiles } from '../helpers/file-reader';
import { realFileSearch } from '../helpers/file-search-backend';
import { makeRig } from '../helpers/server';

const DOCS: Record<string, [string, string]> = {
  'file-solar': ['solar.txt', 'Solar panels on the roof turn sunlight into electricity for the house.'],
  'file-bread': ['bread.md', 'Knead the dough, let it rise overnight, then bake the bread in a hot oven.'],
  'file-whale': ['whales.txt', 'Blue whales sing low songs that travel far across the cold ocean.'],
};
const FAST = { pollIntervalMs: 5 };

describe('a vector store with no embedding model configured', () => {
  it('indexes every file lexically, says so, and answers a search', async () => {
    const files = new TestFiles(DOCS);
    const { client } = makeRig({ readFile: files.reader });
    const vs = await client.vectorStores.create({ name: 'docs' });
    const batch = await client.vectorStores.fileBatches.createAndPoll(
      vs.id,
      { file_ids: Object.keys(DOCS) },
      FAST,
    );
    expect(batch.file_counts).toMatchObject({ completed: 3, failed: 0 });
    expect(await client.vectorStores.retrieve(vs.id)).toMatchObject({
      search_index: 'lexical',
      embedding_model: null,
    });
    const listed = await client.vectorStores.files.list(vs.id);
    expect(listed.data.map((f) => (f as { search_index?: string }).search_index)).toEqual([
      'lexical',
      'lexical',
      'lexical',
    ]);
    const page = await client.vectorStores.search(vs.id, { query: 'whales in the ocean' });
    expect(page.data[0]).toMatchObject({ file_id: 'file-whale', score: 1 });
    expect(page.data.every((h) => h.score > 0 && h.score <= 1)).toBe(true);
  });

  it('answers the file_search tool of a response, with the file quoted and cited', async () => {
    const files = new TestFiles(DOCS);
    const { client } = makeRig({ readFile: files.reader });
    const vs = await client.vectorStores.create({ file_ids: Object.keys(DOCS) });
    for (let i = 0; i < 400 && (await client.vectorStores.retrieve(vs.id)).status === 'in_progress'; i++)
      await new Promise((r) => setTimeout(r, 5));
    const r = await client.responses.create({
      model: 'scripted',
      input: '!file_search dough oven',
      tools: [{ type: 'file_search', vector_store_ids: [vs.id] }],
      include: ['file_search_call.results'],
    });
    const call = r.output.find((o) => o.type === 'file_search_call');
    expect(call).toMatchObject({ status: 'completed' });
    expect((call as { results?: { file_id: string }[] }).results?.[0]?.file_id).toBe('file-bread');
    // The excerpt itself: no frame, and no space left where the citation marker was cut out.
    expect(r.output_text).toMatch(/^Tool file_search returned: bread\.md\nKnead the dough/);
    expect(r.output_text).not.toContain('not instructions');
  });

  it('keeps a file whose configured embedding model cannot run searchable, lexically, not failed', async () => {
    const files = new TestFiles(DOCS);
    const { client } = makeRig({
      readFile: files.reader,
      vectorStores: { embeddingModel: 'no-such-embedder' },
    });
    const vs = await client.vectorStores.create({});
    const file = await client.vectorStores.files.createAndPoll(vs.id, { file_id: 'file-solar' }, FAST);
    expect(file).toMatchObject({ status: 'completed', last_error: null, search_index: 'lexical' });
    expect(await client.vectorStores.retrieve(vs.id)).toMatchObject({
      search_index: 'vector',
      embedding_model: 'no-such-embedder',
    });
    const page = await client.vectorStores.search(vs.id, { query: 'solar roof' });
    expect(page.data.map((h) => h.file_id)).toEqual(['file-solar']);
  });
});

/** A deterministic corpus: topics of their own words over a shared filler vocabulary. */
function corpus(topics: number, docsPerTopic: number) {
  let seed = 7;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const filler = Array.from({ length: 300 }, (_, i) => `common${i}`);
  const vocab = Array.from({ length: topics }, (_, t) =>
    Array.from({ length: 24 }, (_, i) => `t${t}word${i}`),
  );
  const docs: Record<string, [string, string]> = {};
  const topicOf = new Map<string, number>();
  for (let t = 0; t < topics; t++)
    for (let d = 0; d < docsPerTopic; d++) {
      const words = [
        ...Array.from({ length: 6 }, () => pick(vocab[t] as string[])),
        ...Array.from({ length: 14 }, () => pick(filler)),
      ].sort(() => rand() - 0.5);
      const id = `file-t${t}d${d}`;
      docs[id] = [`${id}.txt`, `${words.join(' ')}.`];
      topicOf.set(id, t);
    }
  // Three topic words and two filler words a query: a doc of the topic may share none of the three.
  const queries = Array.from({ length: topics * 3 }, (_, i) => {
    const t = i % topics;
    return {
      topic: t,
      text: [
        pick(vocab[t] as string[]),
        pick(vocab[t] as string[]),
        pick(vocab[t] as string[]),
        pick(filler),
        pick(filler),
      ].join(' '),
    };
  });
  return { docs, topicOf, queries };
}

describe('recall@10, lexical against hybrid (issue 35’s measurement)', () => {
  it('finds nearly every document of the topic that shares a word with the query, with BM25 alone', async () => {
    const { docs, topicOf, queries } = corpus(12, 10);
    const files = new TestFiles(docs);
    const store = new MemoryStore();
    const recalls: Record<string, number> = {};
    for (const [kind, vectorStores] of [
      ['lexical', undefined],
      ['hybrid', { embeddingModel: 'scripted' }],
    ] as const) {
      const { client } = makeRig({ store, readFile: files.reader, vectorStores });
      const vs = await client.vectorStores.create({});
      await client.vectorStores.fileBatches.createAndPoll(vs.id, { file_ids: Object.keys(docs) }, FAST);
      const backend = realFileSearch({ store, readFile: files.reader, vectorStores });
      let found = 0;
      for (const q of queries) {
        const hits = await backend.search({
          vectorStoreIds: [vs.id],
          queries: [q.text],
          maxNumResults: 10,
          rankingOptions:
            kind === 'hybrid' ? { hybrid_search: { embedding_weight: 0.5, text_weight: 0.5 } } : undefined,
        });
        found += hits.filter((h) => topicOf.get(h.file_id) === q.topic).length;
      }
      recalls[kind] = found / (queries.length * 10);
    }
    // What any term-matching search could reach: the topic's documents sharing a word with the query
    // (at most 10 a query). BM25 finds none that shares no word.
    let reachable = 0;
    for (const q of queries) {
      const words = new Set(q.text.split(' '));
      const sharing = [...topicOf].filter(
        ([id, t]) => t === q.topic && (docs[id]?.[1] ?? '').split(/[ .]/).some((w) => words.has(w)),
      );
      reachable += Math.min(10, sharing.length);
    }
    const ceiling = reachable / (queries.length * 10);
    console.info(
      `recall@10 lexical ${recalls.lexical?.toFixed(3)}, hybrid (scripted vectors + BM25) ${recalls.hybrid?.toFixed(3)}, term-overlap ceiling ${ceiling.toFixed(3)}`,
    );
    expect(recalls.lexical).toBeGreaterThan(0.8 * ceiling);
    expect(recalls.lexical).toBeLessThanOrEqual(ceiling);
    expect(recalls.hybrid).toBeGreaterThan(0.3);
  }, 120_000);
});
