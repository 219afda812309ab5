import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonFieldStream, JsonStringDecoder } from '../../../src/core/hosted/json-string-stream';
import { anyJsonValue, jsonGaps, spacedJson, split } from '../../helpers/json-pieces';

/** JSON text of `s` with some characters written as `\uXXXX` escapes, as models sometimes do. */
function escapedJson(s: string, mask: boolean[]): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    out += mask[i % Math.max(1, mask.length)]
      ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`
      : JSON.stringify(ch).slice(1, -1);
  }
  return `${out}"`;
}

function decodeAll(pieces: string[]): { text: string; decoder: JsonStringDecoder } {
  const decoder = new JsonStringDecoder();
  let text = '';
  for (const p of pieces) text += decoder.push(p);
  return { text, decoder };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const anyText = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string());

describe('JsonStringDecoder', () => {
  it('decodes any split of any JSON-encoded string to what JSON.parse reads', () => {
    fc.assert(
      fc.property(anyText, fc.array(fc.nat(), { maxLength: 12 }), (s, cuts) => {
        const json = JSON.stringify(s);
        const { text, decoder } = decodeAll(split(json.slice(1), cuts));
        expect(decoder.closed).toBe(true);
        expect(text).toBe(JSON.parse(json));
      }),
      { numRuns: 500 },
    );
  });

  it('decodes \\u escapes (surrogate pairs among them) split anywhere', () => {
    fc.assert(
      fc.property(
        anyText,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (s, mask, cuts) => {
          const json = escapedJson(s, mask);
          expect(decodeAll(split(json.slice(1), cuts)).text).toBe(JSON.parse(json));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never splits a surrogate pair between two deltas', () => {
    const json = '"a\\ud83d\\ude00b😀c"';
    for (let cut = 1; cut < json.length; cut++) {
      const d = new JsonStringDecoder();
      const first = d.push(json.slice(1, cut));
      const second = d.push(json.slice(cut));
      expect(first + second).toBe('a😀b😀c');
      for (const part of [first, second]) expect(LONE_SURROGATE.test(part)).toBe(false);
    }
  });

  it('stops at the closing quote and says where it ended', () => {
    const d = new JsonStringDecoder();
    expect(d.push('ab\\"c", "x": 1}')).toBe('ab"c');
    expect(d.closed).toBe(true);
    expect(d.consumed).toBe(6);
    expect(d.push('more')).toBe('');
  });

  it('fails on what JSON.parse refuses (a bad escape, a raw control character)', () => {
    for (const bad of ['a\\x"', 'a\\u12g4"', 'a\nb"']) {
      const d = new JsonStringDecoder();
      d.push(bad);
      expect(d.failed).toBe(true);
      expect(() => JSON.parse(`"${bad}`)).toThrow();
    }
  });

  // Counted, not timed (issue 38): the decoder carries at most an escape's 6 characters from one
  // piece to the next, so a piece costs its own length whatever was decoded before it.
  it('decodes 1 MB piece by piece, carrying at most 6 characters between pieces, whatever the piece size', () => {
    const code = 'print("héllo\\n")\t# 😀 \\ done\n'.repeat(40_000);
    const json = JSON.stringify(code);
    expect(json.length).toBeGreaterThan(1_000_000);
    for (const piece of [json.length, 3, 1]) {
      const d = new JsonStringDecoder();
      const out: string[] = [];
      let carried = 0;
      for (let i = 1; i < json.length; i += piece) {
        out.push(d.push(json.slice(i, i + piece)));
        carried = Math.max(carried, d.carried);
      }
      expect(out.join('')).toBe(code);
      expect(carried).toBeLessThanOrEqual(6);
    }
  });
});

/** `json` cut at `cuts` streams out `code`, the whole of it. */
function expectStreamsCode(json: string, cuts: number[], code: string): void {
  const f = new JsonFieldStream('code');
  let out = '';
  for (const p of split(json, cuts)) out += f.push(p);
  expect(f.complete).toBe(true);
  expect(out).toBe(code);
}

describe('JsonFieldStream', () => {
  it("streams one field's text from any split of an object, other fields skipped", () => {
    fc.assert(
      fc.property(
        anyText,
        fc.dictionary(
          fc.string().filter((k) => k !== 'code'),
          fc.jsonValue(),
        ),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (code, others, cuts, spaced) => {
          const value = { ...others, code };
          const json = spaced ? JSON.stringify(value, null, 2) : JSON.stringify(value);
          expectStreamsCode(json, cuts, code);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('streams the field past other values of any kind and spacing, the field anywhere, cut anywhere', () => {
    fc.assert(
      fc.property(
        anyText,
        fc.dictionary(
          fc.string().filter((k) => k !== 'code'),
          anyJsonValue,
          { maxKeys: 5 },
        ),
        fc.nat(),
        jsonGaps,
        fc.array(fc.nat(), { maxLength: 12 }),
        (code, others, at, gaps, cuts) => {
          const fields = Object.entries(others);
          fields.splice(at % (fields.length + 1), 0, ['code', code]);
          const json = spacedJson(Object.fromEntries(fields), gaps);
          expectStreamsCode(json, cuts, code);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives nothing for arguments with no string field of that name', () => {
    for (const json of ['{"code": 12}', '{"x": "code"}', '["code", "a"]', '{"co": "a", "de": "b"}']) {
      const f = new JsonFieldStream('code');
      expect(f.push(json)).toBe('');
      expect(f.complete).toBe(false);
    }
  });
});
