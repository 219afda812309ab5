import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store';
import { TestFiles } from '../helpers/file-reader';
import { makeRig } from '../helpers/server';

/** ~1000 o200k tokens of ordinary prose, with no repeats that a tokenizer could merge differently. */
const TEXT = Array.from({ length: 400 }, (_, i) => `word${i} river${i % 7} stone.`).join(' ');

/** The chunk count of a sliding window, computed here from the tokenizer directly. */
function expectedChunks(text: string, size: number, overlap: number): number {
  const n = encode(text, { disallowedSpecial: new Set() }).length;
  let count = 0;
  for (let start = 0; ; start += size - overlap) {
    count++;
    if (start + size >= n) break;
  }
  return count;
}

describe('chunking strategies', () => {
  it('static 100/50 gives the chunk count computed independently from o200k_base', async () => {
    const store = new MemoryStore();
    const { client } = makeRig({ store, readFile: new TestFiles({ 'file-t': ['t.txt', TEXT] }).reader });
    const vs = await client.vectorStores.create({});
    const file = await client.vectorStores.files.createAndPoll(
      vs.id,
      {
        file_id: 'file-t',
        chunking_strategy: {
          type: 'static',
          static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 50 },
        },
      },
      { pollIntervalMs: 5 },
    );
    expect(file.status).toBe('completed');
    expect(file.chunking_strategy).toEqual({
      type: 'static',
      static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 50 },
    });
    const chunks = await store.vectorStores.readChunks(vs.id, 'file-t');
    const want = expectedChunks(TEXT, 100, 50);
    expect(want).toBeGreaterThan(15); // the text really spans many chunks
    expect(chunks.length).toBe(want);
    // Each chunk is at most 100 tokens and consecutive chunks share their 50-token overlap.
    for (const c of chunks)
      expect(encode(c, { disallowedSpecial: new Set() }).length).toBeLessThanOrEqual(101);
    expect(chunks[0]?.startsWith('word0 ')).toBe(true);
  });

  it('auto reads back as static 800/400, and a short file is one chunk', async () => {
    const store = new MemoryStore();
    const { client } = makeRig({
      store,
      readFile: new TestFiles({ 'file-s': ['s.txt', 'short text'] }).reader,
    });
    const vs = await client.vectorStores.create({});
    const file = await client.vectorStores.files.createAndPoll(
      vs.id,
      { file_id: 'file-s', chunking_strategy: { type: 'auto' } },
      { pollIntervalMs: 5 },
    );
    expect(file.chunking_strategy).toEqual({
      type: 'static',
      static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 },
    });
    expect(await store.vectorStores.readChunks(vs.id, 'file-s')).toEqual(['short text']);
  });

  it.each([
    [
      { max_chunk_size_tokens: 100, chunk_overlap_tokens: 51 },
      'chunking_strategy.static.chunk_overlap_tokens',
    ],
    [
      { max_chunk_size_tokens: 99, chunk_overlap_tokens: 10 },
      'chunking_strategy.static.max_chunk_size_tokens',
    ],
    [
      { max_chunk_size_tokens: 4097, chunk_overlap_tokens: 10 },
      'chunking_strategy.static.max_chunk_size_tokens',
    ],
    [
      { max_chunk_size_tokens: 800, chunk_overlap_tokens: -1 },
      'chunking_strategy.static.chunk_overlap_tokens',
    ],
  ])('static %o is a 400 on %s', async (stat, param) => {
    const { client } = makeRig({ readFile: new TestFiles({ 'file-s': ['s.txt', 'x'] }).reader });
    const vs = await client.vectorStores.create({});
    await expect(
      client.vectorStores.files.create(vs.id, {
        file_id: 'file-s',
        chunking_strategy: { type: 'static', static: stat },
      }),
    ).rejects.toMatchObject({ status: 400, param });
    await expect(
      client.vectorStores.create({
        file_ids: ['file-s'],
        chunking_strategy: { type: 'static', static: stat },
      }),
    ).rejects.toMatchObject({ status: 400, param });
  });
});
