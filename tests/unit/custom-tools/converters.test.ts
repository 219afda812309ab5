/**
 * The custom-tool grammar converters (issue 45), by property: a Lark grammar and a regex become a
 * whole-input pattern, then the GBNF wllama samples under (inside a JSON string, as the model writes
 * a call's `input`); strings of the grammar's language are accepted and others refused, as an
 * independent matcher says (a JavaScript RegExp built from the test's own tree, read through the
 * tests' own GBNF recognizer); the output grows linearly with the definition; each stated bound is
 * a CustomGrammarError, and so is anything else the subset cannot read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CustomGrammarError,
  MAX_DEFINITION_CHARS,
  MAX_INPUT_PATTERN,
  MAX_LARK_RULES,
} from '../../../src/engine/custom-grammar';
import { larkInputPattern, regexInputPattern } from '../../../src/engine/custom-grammar/converters';
import { regexToGbnf } from '../../../src/engine/wllama/grammar/regex-gbnf';
import { gbnfMatches, parseGbnf } from '../../helpers/gbnf-match';
import { larkArb, larkRegExp, larkSample, larkText } from '../../helpers/lark-arbitraries';

/** What the model writes between a JSON string's quotes for `s`. */
const inJson = (s: string) => JSON.stringify(s).slice(1, -1);
const grammarOf = (pattern: string) => parseGbnf(`root ::= ${regexToGbnf(pattern)}\n`);

/** Changes of `s`: a character dropped, doubled, or replaced by one of a few. */
function mutations(s: string, seed: number): string[] {
  const at = s.length === 0 ? 0 : seed % s.length;
  const c = ['a', '"', '9', 'z', '\\', '+'][seed % 6] as string;
  return [
    s.slice(0, at) + s.slice(at + 1),
    s.slice(0, at) + c + s.slice(at),
    s.slice(0, at) + c + s.slice(at + 1),
    `${s}${c}`,
  ];
}

describe('Lark → pattern → GBNF', () => {
  it('accepts every sampled string and agrees with the independent matcher on its mutations', () => {
    fc.assert(
      fc.property(larkArb(), fc.array(fc.nat(), { minLength: 3, maxLength: 3 }), (tree, seeds) => {
        const pattern = larkInputPattern(larkText(tree));
        const grammar = grammarOf(pattern);
        const oracle = larkRegExp(tree);
        for (const seed of seeds) {
          const s = larkSample(tree, seed + 1);
          expect(oracle.test(s)).toBe(true);
          expect(gbnfMatches(grammar, inJson(s))).toBe(true);
          for (const m of mutations(s, seed)) expect(gbnfMatches(grammar, inJson(m))).toBe(oracle.test(m));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('writes a pattern linear in the definition when no rule is shared', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('"ab"', '/[a-c]+/', '"x".."z"', '("a" | "b")*', '["q"]', '"y" ~ 2..4'), {
          minLength: 1,
          maxLength: 300,
        }),
        (items) => {
          // A chain of rules, each used once: start → r1 → r2 …
          const lines = items.map(
            (item, i) => `${i === 0 ? 'start' : `r${i}`}: ${item}${i + 1 < items.length ? ` r${i + 1}` : ''}`,
          );
          const definition = lines.join('\n');
          const pattern = larkInputPattern(definition);
          expect(pattern.length).toBeLessThanOrEqual(4 * definition.length);
          expect(regexToGbnf(pattern).length).toBeLessThanOrEqual(8 * definition.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses sharing that would expand past the bound, recursion, and each stated limit', () => {
    const doubling = [
      'start: r0 r0',
      ...Array.from({ length: 20 }, (_, i) => `r${i}: r${i + 1} r${i + 1}`),
      'r20: "ab"',
    ];
    expect(() => larkInputPattern(doubling.join('\n'))).toThrow(`longer than ${MAX_INPUT_PATTERN}`);
    expect(() => larkInputPattern('start: a\na: "(" b ")"\nb: a | "x"')).toThrow(/'a' is recursive/);
    expect(() => larkInputPattern(`start: "${'a'.repeat(MAX_DEFINITION_CHARS)}"`)).toThrow(
      `${MAX_DEFINITION_CHARS}`,
    );
    const many = ['start: "a"', ...Array.from({ length: MAX_LARK_RULES }, (_, i) => `r${i}: "a"`)];
    expect(() => larkInputPattern(many.join('\n'))).toThrow(`more than ${MAX_LARK_RULES}`);
    expect(() => larkInputPattern(`start: ${'('.repeat(65)}"a"${')'.repeat(65)}`)).toThrow(/deeper than 64/);
    expect(() => larkInputPattern('start: "a" ~ 1001')).toThrow(/above 1000/);
    for (const [definition, construct] of [
      ['%import common.NUMBER\nstart: NUMBER', "'%import'"],
      ['start: "a"i', 'case-insensitive'],
      ['start: /a/s', 'regex flags'],
      ['start: /(?<=a)b/', 'lookarounds'],
      ['start: b', "'b' is used but never defined"],
      ['start: <[1]>', "'<'"],
      ['rule: "a"', "no 'start' rule"],
    ] as const) {
      expect(() => larkInputPattern(definition)).toThrow(construct);
    }
  });

  it('throws nothing but CustomGrammarError on any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'start: "a"|/[]()*+?~.1\n%->b_AB'), maxLength: 60 }),
        (text) => {
          try {
            larkInputPattern(text);
          } catch (err) {
            expect(err).toBeInstanceOf(CustomGrammarError);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('regex → pattern → GBNF', () => {
  const REGEXES = [
    '\\d{3}-\\d{4}',
    '^[a-z]+(?:\\.[a-z]+)*@x\\.com$',
    '(yes|no|maybe)',
    'a"b\\\\c',
    '[A-F0-9]{2}(:[A-F0-9]{2}){0,3}',
  ];

  it('holds the whole input to the definition (the independent matcher: RegExp of the definition)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...REGEXES),
        fc.string({ unit: fc.constantFrom(...'abcxyz0159AF-:.@"\\mo'), maxLength: 14 }),
        (definition, s) => {
          const pattern = regexInputPattern(definition);
          const oracle = new RegExp(`^(?:${definition.replace(/^\^/, '').replace(/\$$/, '')})$`);
          expect(gbnfMatches(grammarOf(pattern), inJson(s))).toBe(oracle.test(s));
        },
      ),
      { numRuns: 500 },
    );
    expect(gbnfMatches(grammarOf(regexInputPattern('\\d{3}-\\d{4}')), '555-1234')).toBe(true);
  });

  it('adds a constant to the definition, and refuses what the subset cannot express', () => {
    fc.assert(
      fc.property(fc.constantFrom(...REGEXES), fc.nat({ max: 20 }), (definition, n) => {
        const long = definition
          .replace(/^\^/, '')
          .replace(/\$$/, '')
          .repeat(n + 1);
        expect(regexInputPattern(long).length).toBe(long.length + 6);
      }),
    );
    expect(() => regexInputPattern('a{1001}')).toThrow(/above 1000/);
    expect(() => regexInputPattern('(a)\\1')).toThrow(/back-references/);
    expect(() => regexInputPattern('a^b')).toThrow(/only at the ends/);
    expect(() => regexInputPattern('x'.repeat(MAX_DEFINITION_CHARS + 1))).toThrow(`${MAX_DEFINITION_CHARS}`);
  });
});
