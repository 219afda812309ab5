import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_QUERY_TERMS } from '../../../src/core/vector-stores/budgets';
import { textRows } from '../../../src/core/vector-stores/search';
import type { IndexedFile, LoadedIndex } from '../../../src/core/vector-stores/vector-index';
import type { StoredVectorStoreFile } from '../../../src/store/vector-stores';
import { countPaceCalls } from '../../helpers/pace-count';

/**
 * Issue 43: MiniSearch scores a whole query in one synchronous call, and a query of many terms
 * held the engine seconds (676 two-letter words: 4.1 s on 2,000 chunks). The ranking now runs one
 * term per MiniSearch call, paced between, and must rank exactly as MiniSearch's own search did.
 */

/** A store's index as the cache loads it: files of chunks, no vectors (BM25 reads only the text). */
function indexOf(files: string[][]): LoadedIndex {
  let rows = 0;
  const indexed: IndexedFile[] = files.map((chunks, i) => {
    const file = { fileId: `file-${i}`, attributes: { n: i } } as unknown as StoredVectorStoreFile;
    const entry = { file, chunks, vectors: new Float32Array(0), offset: rows };
    rows += chunks.length;
    return entry;
  });
  return { store: {} as LoadedIndex['store'], files: indexed, rows };
}

/** MiniSearch's own ranking of `query` over the same chunks, as the search ran it before. */
function reference(files: string[][], query: string, n: number, allowed: (f: number) => boolean) {
  const ms = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], storeFields: [] });
  let row = 0;
  const fileOf: number[] = [];
  files.forEach((chunks, f) => {
    for (const text of chunks) {
      fileOf.push(f);
      ms.add({ id: row++, text });
    }
  });
  return ms
    .search(query, { filter: (r) => allowed(fileOf[r.id as number] as number) })
    .slice(0, n)
    .map((r) => ({ row: r.id as number, score: r.score }));
}

const twoLetterWords = (): string[] => {
  const out: string[] = [];
  for (const a of 'abcdefghijklmnopqrstuvwxyz') for (const b of 'abcdefghijklmnopqrstuvwxyz') out.push(a + b);
  return out;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('BM25 ranking one term at a time (issue 43)', () => {
  it('ranks exactly as MiniSearch ranks the whole query: same rows, scores and tie order', async () => {
    const word = fc.constantFrom('pump', 'Valve', 'seal', 'pipe', 'flow', 'PUMP', 'gasket', 'bolt');
    const chunk = fc.array(fc.oneof(word, fc.constantFrom(',', '.', ' ', '-')), {
      minLength: 1,
      maxLength: 12,
    });
    const text = chunk.map((parts) => parts.join(' '));
    const files = fc.array(fc.array(text, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 });
    const query = fc
      .array(fc.oneof(word, fc.constantFrom('nothing', '!', 'seal seal')), { minLength: 1, maxLength: 8 })
      .map((q) => q.join(' '));
    await fc.assert(
      fc.asyncProperty(files, query, fc.integer({ min: 1, max: 30 }), fc.boolean(), async (fs, q, n, odd) => {
        const allowedFile = (f: number) => !odd || f % 2 === 1;
        const got = await textRows(indexOf(fs), q, n, (f) => allowedFile(f.file.attributes?.n as number));
        expect(got).toEqual(reference(fs, q, n, allowedFile));
      }),
      { numRuns: 200, seed: 43 },
    );
  });

  it('a query of 676 words: one term per MiniSearch call, at most the bound, paced between', async () => {
    const words = twoLetterWords();
    const chunks = Array.from({ length: 300 }, (_, i) =>
      Array.from({ length: 40 }, (_, j) => words[(i * 37 + j * 11) % words.length]).join(' '),
    );
    const index = indexOf([chunks]);
    await textRows(index, 'warm', 10, () => true); // builds the index outside the count
    const search = vi.spyOn(MiniSearch.prototype, 'search');
    const query = words.join(' ');
    expect(query.length).toBe(2027);
    const { value: rows, calls: paces } = await countPaceCalls(() => textRows(index, query, 20, () => true));
    const queries = search.mock.calls.map(([q]) => q as string);
    expect(queries.length).toBe(MAX_QUERY_TERMS);
    expect(queries.every((q) => !/\s/.test(q))).toBe(true);
    expect(queries).toEqual(words.slice(0, MAX_QUERY_TERMS));
    expect(paces).toBeGreaterThanOrEqual(queries.length);
    expect(rows).toHaveLength(20);
  });

  it('only the first distinct terms count; repeats of them still do', async () => {
    const index = indexOf([['alpha target', 'beta', 'gamma']]);
    const filler = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `filler${i}`);
    // `target` is the 65th distinct term: dropped.
    expect(await textRows(index, [...filler, 'target'].join(' '), 5, () => true)).toEqual([]);
    // `alpha` first, repeated after the bound: counted each time, as MiniSearch counts repeats.
    const late = await textRows(index, ['alpha', ...filler, 'alpha'].join(' '), 5, () => true);
    expect(late).toEqual(reference([['alpha target', 'beta', 'gamma']], 'alpha alpha', 5, () => true));
  });
});
