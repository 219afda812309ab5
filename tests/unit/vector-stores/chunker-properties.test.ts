import fc from 'fast-check';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { chunkRanges, chunkText, tokenize } from '../../../src/core/vector-stores';
import { MAX_RUN_CHARS } from '../../../src/core/vector-stores/chunker';
import { countPaced } from '../../helpers/pace-count';

const strategy = fc
  .integer({ min: 100, max: 4096 })
  .chain((size) =>
    fc.record({ size: fc.constant(size), overlap: fc.integer({ min: 0, max: Math.floor(size / 2) }) }),
  );

describe('the chunker (fast-check, fixed seeds)', () => {
  it('ranges cover every token in order, each ≤ size, stepping size − overlap, as many as the formula says', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50_000 }), strategy, (count, { size, overlap }) => {
        const ranges = chunkRanges(count, size, overlap);
        const formula =
          count === 0 ? 0 : count <= size ? 1 : 1 + Math.ceil((count - size) / (size - overlap));
        expect(ranges.length).toBe(formula);
        ranges.forEach(([start, end], i) => {
          expect(start).toBe(i * (size - overlap));
          expect(end - start).toBeLessThanOrEqual(size);
          expect(end).toBe(Math.min(start + size, count));
        });
        if (count > 0) expect(ranges.at(-1)?.[1]).toBe(count);
        // Linear: never more chunks than one per (size − overlap) tokens, plus one.
        expect(ranges.length).toBeLessThanOrEqual(count / (size - overlap) + 1);
      }),
      { numRuns: 300, seed: 22 },
    );
  });

  it('tokenize is exactly encode (no run past the bound), and chunk tokens are the text’s tokens windowed', async () => {
    const text = fc.array(
      fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(' ', '\n', '\n\n', 'é', '🙂', '<|endoftext|>')),
      { maxLength: 400 },
    );
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.record({ size: fc.constant(100), overlap: fc.integer({ min: 0, max: 50 }) }),
        async (parts, s) => {
          const joined = parts.join('');
          const tokens = await tokenize(joined);
          // Runs past the bound are cut before the merge (issue 43); shorter ones change nothing.
          const longest = Math.max(0, ...(joined.match(/\S+|\s+/gu) ?? []).map((r) => r.length));
          if (longest <= MAX_RUN_CHARS)
            expect(tokens).toEqual(encode(joined, { disallowedSpecial: new Set() }));
          const chunks = await chunkText(joined, {
            max_chunk_size_tokens: s.size,
            chunk_overlap_tokens: s.overlap,
          });
          const ranges = chunkRanges(tokens.length, s.size, s.overlap);
          expect(chunks.map((c) => c.tokens)).toEqual(ranges.map(([a, b]) => tokens.slice(a, b)));
        },
      ),
      { numRuns: 60, seed: 22 },
    );
  });

  // Counted, not timed (issue 38): the tokens are encoded at most 2,048 pieces (words or so) between
  // two calls to pace(), and each chunk is one more; with every call made to yield, each is a yield.
  it('a 1 MB text chunks in slices with yields between them (paced)', async () => {
    const words = 60_000;
    const big = Array.from({ length: words }, (_, i) => `token${i % 997} text.`).join(' ');
    const {
      value: chunks,
      calls,
      yields,
    } = await countPaced(() => chunkText(big, { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 }));
    expect(chunks.length).toBeGreaterThan(100);
    expect(calls).toBeGreaterThanOrEqual(chunks.length + Math.floor(words / 2048));
    expect(yields).toBeGreaterThanOrEqual(calls - 1);
  });
});
