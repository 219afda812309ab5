/**
 * The tokens the llama.cpp engine never lets the model sample, whatever the request: pieces that
 * no valid UTF-8 text can hold, which llama.cpp's JSON writer refuses by aborting the instance.
 */
import fc from 'fast-check';
import llama3Tokenizer from 'llama3-tokenizer-js';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import { isSafeUtf8Piece, unsafeUtf8Tokens } from '../../../src/engine/wllama/utf8-tokens';
import { ANY_TEXT_GRAMMAR, planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';

const bytes = (...b: number[]) => Uint8Array.from(b);
const strict = new TextDecoder('utf-8', { fatal: true });
const isValid = (b: Uint8Array) => {
  try {
    strict.decode(b);
    return true;
  } catch {
    return false;
  }
};

describe('isSafeUtf8Piece', () => {
  it('refuses the bytes no valid UTF-8 holds: 0xC0, 0xC1, 0xF5 to 0xFF', () => {
    for (const b of [0xc0, 0xc1, 0xf5, 0xf6, 0xf8, 0xfe, 0xff]) expect(isSafeUtf8Piece(bytes(b))).toBe(false);
    expect(isSafeUtf8Piece(bytes(0x61, 0xf6, 0x80, 0x80, 0x80))).toBe(false);
  });

  it('takes whole characters, the end of one (up to three continuation bytes) and the start of one', () => {
    expect(isSafeUtf8Piece(new TextEncoder().encode(' héllo 日本 😀'))).toBe(true);
    expect(isSafeUtf8Piece(bytes(0x80, 0x80, 0x80, 0x61))).toBe(true);
    expect(isSafeUtf8Piece(bytes(0x80, 0x80, 0x80, 0x80))).toBe(false);
    expect(isSafeUtf8Piece(bytes(0x20, 0xe6, 0x97))).toBe(true);
    expect(isSafeUtf8Piece(bytes(0xc3))).toBe(true);
  });

  it('refuses a lone E0, ED, F0 or F4 at the end, and a second byte that makes an overlong, a surrogate or a code point past U+10FFFF', () => {
    for (const lead of [0xe0, 0xed, 0xf0, 0xf4]) expect(isSafeUtf8Piece(bytes(0x20, lead))).toBe(false);
    expect(isSafeUtf8Piece(bytes(0xe0, 0x80))).toBe(false);
    expect(isSafeUtf8Piece(bytes(0xe0, 0xa4))).toBe(true);
    expect(isSafeUtf8Piece(bytes(0xed, 0xa0))).toBe(false);
    expect(isSafeUtf8Piece(bytes(0xf0, 0x8f))).toBe(false);
    expect(isSafeUtf8Piece(bytes(0xf4, 0x90))).toBe(false);
    expect(isSafeUtf8Piece(bytes(0xc3, 0x61))).toBe(false);
  });

  it('property: safe pieces joined as a lead-then-continuations grammar allows are always valid UTF-8', () => {
    // The grammar's part: a started character goes on only with continuation bytes, as many as
    // it needs. Whatever safe pieces are joined under that rule, the text is valid.
    const piece = fc.uint8Array({ minLength: 1, maxLength: 6 }).filter(isSafeUtf8Piece);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const out: number[] = [];
        let remain = 0;
        for (const p of pieces) {
          // What llama.cpp's grammar checks: continuation bytes exactly where a character needs them.
          let ok = true;
          let r = remain;
          for (const b of p) {
            if (r > 0) {
              if ((b & 0xc0) !== 0x80) ok = false;
              r--;
            } else if ((b & 0xc0) === 0x80) ok = false;
            else r = b < 0x80 ? 0 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : 3;
          }
          if (!ok) continue;
          out.push(...p);
          remain = r;
        }
        // A finished text (no character left open) is valid UTF-8.
        if (remain === 0) expect(isValid(Uint8Array.from(out))).toBe(true);
      }),
      { numRuns: 2000, seed: 27 },
    );
  });
});

describe('unsafeUtf8Tokens on the Llama 3 vocabulary', () => {
  const vocab = (() => {
    const out: string[] = [];
    const table = (llama3Tokenizer as unknown as { vocabById: string[] }).vocabById;
    for (const t of table) out.push(t);
    return out;
  })();

  it('bans the 13 byte tokens no UTF-8 holds and the lone narrow leads, and keeps whole words', () => {
    const unsafe = new Set(unsafeUtf8Tokens(vocab, 'gpt2'));
    // 'ö' is how byte-level BPE writes the byte 0xF6 (the byte llama.cpp's writer choked on).
    expect(unsafe.has(vocab.indexOf('ö'))).toBe(true);
    expect(unsafe.has(vocab.indexOf('à'))).toBe(true); // 0xE0
    expect(unsafe.has(vocab.indexOf('Ġhello'))).toBe(false);
    // A small share of the vocabulary: the model loses nothing it needs.
    expect(unsafe.size).toBeGreaterThanOrEqual(13);
    expect(unsafe.size).toBeLessThan(vocab.length / 100);
  });

  it('bans SentencePiece byte tokens by value', () => {
    expect(unsafeUtf8Tokens(['<0x41>', '<0xC3>', '<0xC0>', '<0xF6>', '<0xE0>', '▁hi'], 'llama')).toEqual([
      2, 3, 4,
    ]);
  });
});

describe('the plan bans unsafe tokens and holds every request to a grammar', () => {
  const runtime = { family: familyOf('Llama-3.2-1B-Instruct'), invalidUtf8: [7, 9], unsafeUtf8: [3] };

  it('bans the unsafe tokens without logprobs, and every partial one as well with them', async () => {
    expect((await planWllamaRequest(generateRequest(), runtime)).params.logit_bias).toEqual({ 3: false });
    expect((await planWllamaRequest(generateRequest({ topLogprobs: 2 }), runtime)).params.logit_bias).toEqual(
      {
        3: false,
        7: false,
        9: false,
      },
    );
  });

  it('gives plain text the any-text grammar (llama.cpp tracks UTF-8 only under one), which takes any text', async () => {
    const { params } = await planWllamaRequest(generateRequest(), runtime);
    expect(params.grammar).toBe(ANY_TEXT_GRAMMAR);
    expect(gbnfMatches(ANY_TEXT_GRAMMAR, 'héllo 日本 😀\n{"a": [1]}')).toBe(true);
    expect(gbnfMatches(ANY_TEXT_GRAMMAR, '')).toBe(true);
  });
});
