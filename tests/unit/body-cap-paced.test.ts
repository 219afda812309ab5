/**
 * A body near the 16 MiB cap is read, scanned and counted in slices (issue 27, §4): the scripted
 * model counts its tokens without making them (`scriptedTokens(text)` made one string per word, and a
 * 16 MiB input held the engine worker about a second in one step), the body is decoded and its depth
 * scanned 1 MiB at a time. Each gives exactly what the one-step form gave.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readStreamCapped } from '../../src/core/http/capped-read';
import { readJsonObject } from '../../src/core/http/json-body';
import { jsonDepthExceeds, jsonDepthExceedsPaced } from '../../src/core/validation/json-depth';
import { scriptedTokens } from '../../src/engine/scripted/scripted-engine';
import { countScriptedTokens, isRegexSpace } from '../../src/engine/scripted/token-count';
import { countPaced } from '../helpers/pace-count';

describe("the scripted model's token count", () => {
  it('treats every UTF-16 code unit as /\\s/ does (all 65,536)', () => {
    for (let c = 0; c <= 0xffff; c++)
      expect(isRegexSpace(c), c.toString(16)).toBe(/\s/.test(String.fromCharCode(c)));
  });

  it('is scriptedTokens(text).length (500 random texts, whitespace-heavy)', async () => {
    const unit = fc.constantFrom(
      ' ',
      '\n',
      '\t',
      '\u00a0',
      '\u2028',
      '\ufeff',
      '\u3000',
      'a',
      'é',
      '\ud83d',
      '\ude00',
      '"',
      '{',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(unit, { maxLength: 60 }).map((u) => u.join('')),
        async (text) => {
          expect(await countScriptedTokens(text)).toBe(scriptedTokens(text).length);
        },
      ),
      { numRuns: 500 },
    );
    // Across the slices it counts in (a word spanning a slice's edge is one word).
    const long = `${'ab '.repeat(700_000)}x${'y'.repeat(10)}`;
    expect(await countScriptedTokens(long)).toBe(scriptedTokens(long).length);
  });

  // Before: ~1 s in one step (8 million strings, then their garbage). Counted, not timed (issue 38):
  // 16 MiB of words is scanned at most 1 Mi characters at a time, yielding between slices.
  it('counts 16 MiB of words in slices of at most 1 Mi characters, yielding between them', async () => {
    const text = 'w0 '.repeat(4_000_000);
    const { value, calls, yields } = await countPaced(() => countScriptedTokens(text));
    expect(value).toBe(4_000_000);
    const slices = Math.ceil(text.length / (1 << 20));
    expect(calls).toBeGreaterThanOrEqual(slices - 1);
    expect(yields).toBeGreaterThanOrEqual(calls - 1);
  });
});

describe('the depth scan in slices', () => {
  it('says what the one-pass scan says (300 random JSON texts, and bracket runs across a slice edge)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 6 }), async (v, max) => {
        const text = JSON.stringify(v);
        expect(await jsonDepthExceedsPaced(text, max)).toBe(jsonDepthExceeds(text, max));
      }),
      { numRuns: 300 },
    );
    const edge = `[${' '.repeat((1 << 20) - 3)}"\\"[[[[",[[[]]]]`;
    expect(await jsonDepthExceedsPaced(edge, 3)).toBe(jsonDepthExceeds(edge, 3));
    expect(await jsonDepthExceedsPaced(edge, 4)).toBe(jsonDepthExceeds(edge, 4));
  });
});

describe('the body decoded in slices', () => {
  it('is the text one decode gives, with characters split across slice edges (2, 3 and 4 bytes)', async () => {
    for (const ch of ['é', '€', '😀']) {
      for (let shift = 0; shift < 8; shift++) {
        const pad = 'a'.repeat((1 << 20) - 12 - shift);
        const value = { pad, s: `${ch}${ch}${ch}x`, t: ch.repeat(300_000) };
        const body = new TextEncoder().encode(JSON.stringify(value));
        const read = await readJsonObject(new Request('http://x.test/', { method: 'POST', body }), 16 << 20);
        expect(read).toEqual(value);
      }
    }
    // Bytes that are not UTF-8 become U+FFFD as before (the parser then sees them as text).
    const bad = new Uint8Array([
      ...new TextEncoder().encode(`{"a":"${'b'.repeat((1 << 20) - 7)}`),
      0xe2,
      0x82,
      0x22,
      0x7d,
    ]);
    const read = await readJsonObject(new Request('http://x.test/', { method: 'POST', body: bad }), 16 << 20);
    expect(read).toEqual(JSON.parse(new TextDecoder().decode(bad)));
  });
});

describe('a body read whole', () => {
  const streamOf = (...chunks: Uint8Array[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    });
  const tooLarge = () => new Error('too large');

  it('is its bytes exactly, its buffer no longer (one whole chunk kept, a part of one or many copied)', async () => {
    const whole = new Uint8Array([1, 2, 3]);
    expect(await readStreamCapped(streamOf(whole), 10, tooLarge)).toBe(whole);
    const part = new Uint8Array([9, 1, 2, 3, 9]).subarray(1, 4);
    for (const read of [
      await readStreamCapped(streamOf(part), 10, tooLarge),
      await readStreamCapped(streamOf(whole.subarray(0, 1), whole.subarray(1)), 10, tooLarge),
    ]) {
      expect([...read]).toEqual([1, 2, 3]);
      expect(read.buffer.byteLength).toBe(3);
    }
    await expect(readStreamCapped(streamOf(whole), 2, tooLarge)).rejects.toThrow('too large');
  });
});
