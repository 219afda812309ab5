import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonValueKinds, JsonValueScanner } from '../../../src/common/json-scan';
import { jsonEnd } from '../../../src/engine/tool-formats/json-text';
import { JsonArguments } from '../../../src/engine/tool-formats/partial-call';
import { anyJsonValue, jsonGaps, spacedJson, split } from '../../helpers/json-pieces';

const isContainer = (v: unknown) => typeof v === 'object' && v !== null;
const isScalar = (v: unknown) => v === null || typeof v === 'number' || typeof v === 'boolean';

/**
 * Valid JSON text of a value, whitespace before it and text after it. What follows a number or a
 * literal starts with what may follow one inside a container (else `1` then `2` would be `12`).
 */
const valueInText = fc
  .record({
    value: anyJsonValue,
    gaps: jsonGaps,
    lead: fc.stringMatching(/^[ \t\r\n]{0,3}$/),
    stop: fc.constantFrom(' ', '\n', ',', ']', '}'),
    rest: fc.oneof(fc.string(), fc.constantFrom('}', '"', '\\', ']}', ', "x": 1}', '</tool_call>')),
  })
  .map(({ value, gaps, lead, stop, rest }) => {
    const json = spacedJson(value, gaps);
    return { value, json, lead, text: lead + json + (isScalar(value) ? stop : '') + rest };
  });

/** The scanner fed `pieces` one by one: the end in the whole text, or -1. */
function scanPieces(scanner: JsonValueScanner, pieces: string[]): number {
  let offset = 0;
  for (const piece of pieces) {
    const end = scanner.scan(piece, 0);
    if (end >= 0) return offset + end;
    offset += piece.length;
  }
  return -1;
}

/** The scanner fed one growing text, grown at `cuts`, each call going on where the last stopped. */
function scanGrowing(scanner: JsonValueScanner, text: string, cuts: number[]): number {
  let at = 0;
  let grown = '';
  for (const piece of split(text, cuts)) {
    grown += piece;
    const end = scanner.scan(grown, at);
    if (end >= 0) return end;
    at = grown.length;
  }
  return -1;
}

function takes(kinds: JsonValueKinds, value: unknown): boolean {
  if (kinds === 'any') return true;
  if (kinds === 'container') return isContainer(value);
  return isContainer(value) && !Array.isArray(value);
}

describe('JsonValueScanner', () => {
  it("ends a value exactly where JSON.parse's value ends, whole or cut into pieces anywhere", () => {
    fc.assert(
      fc.property(
        valueInText,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.constantFrom<JsonValueKinds>('any', 'container', 'object'),
        ({ value, json, lead, text }, cuts, kinds) => {
          const whole = lead.length + json.length;
          const expected = takes(kinds, value) ? whole : -1;
          const once = new JsonValueScanner(kinds);
          expect(once.scan(text, 0)).toBe(expected);
          expect(scanPieces(new JsonValueScanner(kinds), split(text, cuts))).toBe(expected);
          expect(scanGrowing(new JsonValueScanner(kinds), text, cuts)).toBe(expected);
          if (expected < 0) return;
          expect(once.start).toBe(lead.length);
          expect(JSON.parse(text.slice(0, expected))).toEqual(JSON.parse(json));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('answers -1 for every prefix that stops short of the value (and of what ends a number)', () => {
    fc.assert(
      fc.property(
        valueInText,
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        ({ value, json, lead, text }, cuts) => {
          // A number's or a literal's whole text is still short of its end: more digits may come.
          const short = lead.length + json.length + (isScalar(value) ? 1 : 0);
          for (const cut of cuts) {
            const prefix = text.slice(0, cut % short);
            expect(new JsonValueScanner('any').scan(prefix, 0)).toBe(-1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a value of another kind, and reads nothing once done', () => {
    const cases: [JsonValueKinds, string][] = [
      ['object', ' [1]'],
      ['object', '"a"'],
      ['container', '12,'],
      ['container', 'null '],
      ['container', '"{}"'],
    ];
    for (const [kinds, text] of cases) {
      const s = new JsonValueScanner(kinds);
      expect(s.scan(text, 0)).toBe(-1);
      expect(s.refused).toBe(true);
      expect(s.scan('{}', 0)).toBe(-1);
    }
    const s = new JsonValueScanner('any');
    expect(s.scan('{}{}', 0)).toBe(2);
    expect(s.scan('{}{}', 2)).toBe(-1);
    expect(s.scanned).toBe(2);
  });

  // Counted, not timed: the scanner carries counts and flags between parts, never text, so a value
  // costs its own length however finely it is cut.
  it('reads each character of a 1 MB value once, whatever the cut', () => {
    const deep = `${'['.repeat(50_000)}${'"a\\"]}", '.repeat(100_000)}1${']'.repeat(50_000)}`;
    expect(deep.length).toBeGreaterThan(1_000_000);
    for (const piece of [deep.length, 7, 1]) {
      const scanner = new JsonValueScanner('container');
      const cuts = Array.from({ length: Math.ceil(deep.length / piece) }, (_, k) => k * piece);
      expect(scanPieces(scanner, split(deep, cuts))).toBe(deep.length);
      expect(scanner.scanned).toBe(deep.length);
    }
    // One growing text (as a call's region grows), looked at every 64 kB.
    const growing = new JsonValueScanner('container');
    const cuts = Array.from({ length: 16 }, (_, k) => k * 65_536);
    expect(scanGrowing(growing, deep, cuts)).toBe(deep.length);
    expect(growing.scanned).toBe(deep.length);
  });
});

describe('the scanner in its users', () => {
  it('jsonEnd finds where a call (an object or a list) ends, and -1 for anything else', () => {
    fc.assert(
      fc.property(valueInText, ({ value, json, lead, text }) => {
        expect(jsonEnd(text, 0)).toBe(isContainer(value) ? lead.length + json.length : -1);
      }),
      { numRuns: 300 },
    );
  });

  it('JsonArguments streams exactly the arguments object, however its region grows', () => {
    const head = '<tool_call>\n{"name": "f", "arguments": ';
    fc.assert(
      fc.property(valueInText, fc.array(fc.nat(), { maxLength: 12 }), ({ value, json, text }, cuts) => {
        const region = head + text;
        const args = new JsonArguments(head.length);
        let grown = '';
        let out = '';
        for (const piece of split(region, cuts)) {
          grown += piece;
          out += args.next(grown);
        }
        expect(out).toBe(isContainer(value) && !Array.isArray(value) ? json : '');
      }),
      { numRuns: 300 },
    );
  });
});
