import { beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * Issue 43: gpt-tokenizer's byte-pair merge is quadratic in one pre-token piece, and a run of
 * letters is one piece, so a 600 KB one-word file held the engine ~50 s. The encoder is wrapped to
 * see what each call is given: no call may get a run longer than the chunker's bound. Counted, not
 * timed; the wrapper refuses an unbounded run, so the unfixed chunker fails here at once rather
 * than spending minutes in the merge.
 */
const BOUND = 256;
const seen = vi.hoisted(() => ({ calls: 0, longestRun: 0 }));

vi.mock('gpt-tokenizer/encoding/o200k_base', async (importOriginal) => {
  const real = await importOriginal<typeof import('gpt-tokenizer/encoding/o200k_base')>();
  const longestRun = (text: string): number =>
    Math.max(0, ...(text.match(/\S+|\s+/gu) ?? []).map((run) => run.length));
  return {
    ...real,
    encodeGenerator: (text: string, opts?: Parameters<typeof real.encodeGenerator>[1]) => {
      seen.calls++;
      const run = longestRun(text);
      seen.longestRun = Math.max(seen.longestRun, run);
      if (run > BOUND) throw new Error(`an unbounded run of ${run} characters reached the merge`);
      return real.encodeGenerator(text, opts);
    },
  };
});

const { decode, encode } = await import('gpt-tokenizer/encoding/o200k_base');
const { chunkText, tokenize } = await import('../../../src/core/vector-stores');
const { countPaceCalls } = await import('../../helpers/pace-count');
const { MAX_RUN_CHARS, encodeSpans } = await import('../../../src/core/vector-stores/chunker');

describe('the chunker and long runs (issue 43)', () => {
  beforeEach(() => {
    seen.calls = 0;
    seen.longestRun = 0;
  });

  it('a 200 KB one-word file reaches the merge in bounded pieces, and chunks sanely', async () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    let word = '';
    for (let i = 0; word.length < 200_000; i++) word += letters[(i * 7 + (i >> 5)) % 26];
    const { value: chunks, calls } = await countPaceCalls(() =>
      chunkText(word, { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 }),
    );
    expect(seen.longestRun).toBeLessThanOrEqual(MAX_RUN_CHARS);
    expect(seen.calls).toBeGreaterThanOrEqual(200_000 / MAX_RUN_CHARS);
    // Between 1 and 4 characters a token for Latin letters: 50k–200k tokens, 800 a chunk, 400 apart.
    expect(chunks.length).toBeGreaterThan(50_000 / 400 - 2);
    expect(chunks.length).toBeLessThan(200_000 / 400 + 2);
    expect(chunks.every((c) => c.tokens.length <= 800)).toBe(true);
    const tokens = await tokenize(word);
    expect(decode(tokens)).toBe(word);
    // Paced every 2,048 tokens at most, and once a chunk.
    expect(calls).toBeGreaterThanOrEqual(Math.floor(tokens.length / 2048) + chunks.length);
  });

  it('long runs of whitespace and punctuation are cut too; the tokens still decode to the text', async () => {
    const text = `start ${'='.repeat(3000)}\n${' '.repeat(2000)}${'\n'.repeat(900)}${'🙂'.repeat(700)} end`;
    const tokens = await tokenize(text);
    expect(seen.longestRun).toBeLessThanOrEqual(MAX_RUN_CHARS);
    expect(decode(tokens)).toBe(text);
  });

  it('a text without a long run is one span, encoded exactly as encode()', async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `word${i} ${'x'.repeat(i % MAX_RUN_CHARS)}`).join(
      ' ',
    );
    expect([...encodeSpans(text)]).toEqual([text]);
    expect(await tokenize(text)).toEqual(encode(text, { disallowedSpecial: new Set() }));
    expect(seen.calls).toBe(1);
  });

  it('spans join to the text, cut runs at the bound, never inside a surrogate pair', () => {
    expect(MAX_RUN_CHARS).toBeLessThanOrEqual(BOUND);
    expect([...encodeSpans('a'.repeat(600))].map((s) => s.length)).toEqual([256, 256, 88]);
    const emoji = `xy ${'🙂'.repeat(300)}`; // pairs start at odd indices: a cut 256 units on splits one
    const spans = [...encodeSpans(emoji)];
    expect(spans.join('')).toBe(emoji);
    for (const s of spans) {
      expect(s.length).toBeLessThanOrEqual(MAX_RUN_CHARS);
      expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(s)).toBe(false);
    }
    expect([...encodeSpans('')]).toEqual([]);
  });
});
