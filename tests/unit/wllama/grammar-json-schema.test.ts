/**
 * The GBNF grammars the llama.cpp engine sends for JSON Schema, regex patterns included. Each grammar
 * is parsed and run by an independent recognizer (tests/helpers/gbnf-match.ts): values valid by ajv
 * match, invalid ones do not. (The same grammars run in real llama.cpp in
 * tests/e2e/wllama-structured-output.test.ts.)
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { gbnfClass, gbnfLiteral } from '../../../src/engine/wllama/grammar/gbnf';
import {
  jsonSchemaToGbnf,
  rangeAlternatives,
  UnsupportedSchemaError,
} from '../../../src/engine/wllama/grammar/json-schema-gbnf';
import { regexToGbnf, UnsupportedPatternError } from '../../../src/engine/wllama/grammar/regex-gbnf';
import { gbnfMatches, parseGbnf } from '../../helpers/gbnf-match';

const ajv = new Ajv2020({ strict: false });
addFormats.default ? addFormats.default(ajv) : (addFormats as unknown as (a: Ajv2020) => void)(ajv);

/** Every value must match the grammar exactly when ajv accepts it, for these hand-picked values. */
function agree(
  schema: Record<string, unknown>,
  values: unknown[],
  opts: { compactOnly?: boolean } = {},
): void {
  const grammar = jsonSchemaToGbnf(schema);
  const rules = parseGbnf(grammar);
  const validate = ajv.compile(schema);
  for (const v of values) {
    const texts = opts.compactOnly ? [JSON.stringify(v)] : [JSON.stringify(v), JSON.stringify(v, null, 1)];
    for (const text of texts) {
      expect(gbnfMatches(rules, text), `${text} (ajv: ${validate(v)})\n${grammar}`).toBe(validate(v));
    }
  }
}

describe('GBNF text', () => {
  it('escapes literals and classes the way llama.cpp reads them', () => {
    expect(gbnfLiteral('a"b\\c\n')).toBe('"a\\x22b\\\\c\\n"');
    expect(gbnfLiteral('\u0001é😀')).toBe('"\\x01é\\U0001f600"');
    expect(
      gbnfClass(
        [
          [0x2d, 0x2d],
          [0x5d, 0x5d],
          [0x61, 0x7a],
        ],
        true,
      ),
    ).toBe('[^\\x2d\\x5da-z]');
    expect(gbnfMatches(`root ::= ${gbnfLiteral('say "hi"\n')}`, 'say "hi"\n')).toBe(true);
  });
});

describe('JSON Schema to GBNF', () => {
  it('objects: required, optional in order, no extra members', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'string' }, c: { type: 'boolean' } },
      required: ['a'],
      additionalProperties: false,
    };
    agree(schema, [
      { a: 1 },
      { a: -5, b: 'x' },
      { a: 1, c: true },
      { a: 1, b: 'q', c: false },
      {},
      { b: 'x' },
      { a: 'x' },
    ]);
    expect(gbnfMatches(jsonSchemaToGbnf(schema), '{"a": 1, "d": 2}')).toBe(false);
    // Members come in schema order.
    expect(gbnfMatches(jsonSchemaToGbnf(schema), '{"a": 1, "c": true, "b": "x"}')).toBe(false);
  });

  it('objects with no required member, and with additionalProperties', () => {
    agree({ type: 'object', properties: { x: { type: 'null' }, y: { type: 'integer' } } }, [
      {},
      { x: null },
      { y: 3 },
      { x: null, y: 2 },
    ]);
    const open = {
      type: 'object',
      properties: { id: { type: 'integer' } },
      required: ['id'],
      additionalProperties: { type: 'string' },
    };
    const g = jsonSchemaToGbnf(open);
    expect(gbnfMatches(g, '{"id": 1, "note": "x", "more": "y"}')).toBe(true);
    expect(gbnfMatches(g, '{"id": 1, "note": 2}')).toBe(false);
  });

  it('strings: lengths, escapes, formats', () => {
    agree({ type: 'string', minLength: 2, maxLength: 4 }, ['a', 'ab', 'abcd', 'abcde', 'a"', 'é✓']);
    const g = jsonSchemaToGbnf({ type: 'string' });
    expect(gbnfMatches(g, '"a\\"b\\\\c\\u00e9\\n"')).toBe(true);
    expect(gbnfMatches(g, '"raw\nnewline"')).toBe(false);
    agree({ type: 'string', format: 'date' }, ['2024-02-28', '2024-12-31', '2024-13-01', '2024-04-31', 'x']);
    agree({ type: 'string', format: 'time' }, ['12:30:00Z', '23:59:59+02:00', '24:00:00Z']);
    agree({ type: 'string', format: 'date-time' }, ['2024-01-02T03:04:05Z', '2024-01-02T25:04:05Z']);
    agree({ type: 'string', format: 'uuid' }, ['123e4567-e89b-12d3-a456-426614174000', '123e4567']);
    agree({ type: 'string', format: 'email' }, ['a.b@example.com', 'x@y.io', 'nope', 'a..b@c.de']);
  });

  it('numbers and integer ranges (exclusive bounds too)', () => {
    agree({ type: 'integer' }, [0, 7, -12, 1234567890123, 1.5]);
    agree({ type: 'integer', minimum: 5, maximum: 12 }, [4, 5, 9, 10, 12, 13, -5]);
    agree({ type: 'integer', minimum: -50, maximum: 50 }, [-51, -50, -7, 0, 49, 50, 51]);
    agree({ type: 'integer', exclusiveMinimum: 0, maximum: 100 }, [0, 1, 99, 100, 101]);
    agree({ type: 'integer', minimum: 1 }, [0, 1, 5, 99999]);
    agree({ type: 'number' }, [0, -1.25, 3e5, 10]);
    expect(gbnfMatches(jsonSchemaToGbnf({ type: 'number', minimum: 0 }), '-1')).toBe(false);
    expect(rangeAlternatives(5, 12)).toEqual(['[5-9]', '"1" [0-2]']);
  });

  it('enum, const, nullable types, anyOf, arrays, tuples', () => {
    agree({ enum: ['red', 'green', 3, null] }, ['red', 'green', 3, null, 'blue', 4]);
    // A const is written compactly, as JSON.stringify writes it.
    agree({ const: { a: [1, 2] } }, [{ a: [1, 2] }, { a: [2, 1] }], { compactOnly: true });
    agree({ type: ['string', 'null'], maxLength: 3 }, ['abc', null, 'abcd', 5]);
    agree(
      {
        anyOf: [
          { type: 'integer', minimum: 0, maximum: 9 },
          { type: 'string', enum: ['none'] },
        ],
      },
      [0, 9, 10, 'none', 'x'],
    );
    agree({ type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 }, [
      [],
      [1],
      [1, 2, 3],
      [1, 2, 3, 4],
      ['a'],
    ]);
    agree({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false }, [
      ['a', 1],
      ['a'],
      ['a', 1, 2],
      [1, 'a'],
    ]);
  });

  it('$ref into $defs, recursion included; allOf of objects', () => {
    const tree = {
      type: 'object',
      $defs: {
        node: {
          type: 'object',
          properties: { v: { type: 'integer' }, kids: { type: 'array', items: { $ref: '#/$defs/node' } } },
          required: ['v', 'kids'],
          additionalProperties: false,
        },
      },
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
      additionalProperties: false,
    };
    agree(tree, [
      { root: { v: 1, kids: [] } },
      { root: { v: 1, kids: [{ v: 2, kids: [{ v: 3, kids: [] }] }] } },
      { root: { v: 1 } },
    ]);
    agree(
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'boolean' } }, required: ['b'] },
        ],
      },
      [{ a: 1, b: true }, { a: 1 }],
    );
  });

  it('bounds whitespace: pretty JSON matches, a run of blank lines does not', () => {
    const g = jsonSchemaToGbnf({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] });
    expect(gbnfMatches(g, '{\n  "a": 1\n}')).toBe(true);
    expect(gbnfMatches(g, `{${' '.repeat(30)}"a": 1}`)).toBe(false);
    expect(gbnfMatches(g, '{\n\n\n"a": 1}')).toBe(false);
  });

  it('refuses what no grammar here enforces, naming where', () => {
    for (const [schema, where] of [
      [{ type: 'integer', multipleOf: 2 }, '/multipleOf'],
      [{ type: 'array', uniqueItems: true }, '/uniqueItems'],
      [{ type: 'object', properties: { a: { not: { type: 'null' } } } }, '/properties/a/not'],
      [{ $ref: 'https://example.com/s.json' }, '/$ref'],
      [{ type: 'string', pattern: '(?=a)b' }, '/pattern'],
    ] as const) {
      try {
        jsonSchemaToGbnf(schema as Record<string, unknown>);
        expect.unreachable(JSON.stringify(schema));
      } catch (err) {
        expect(err).toBeInstanceOf(UnsupportedSchemaError);
        expect((err as UnsupportedSchemaError).path).toBe(where);
      }
    }
  });
});

describe('regex patterns inside JSON strings', () => {
  const inString = (pattern: string, text: string) =>
    gbnfMatches(`root ::= "\\"" ${regexToGbnf(pattern)} "\\""`, JSON.stringify(text));

  it('agrees with JavaScript RegExp on anchored patterns', () => {
    const cases: Array<[string, string[]]> = [
      ['^[A-Z]{3}-\\d{4}$', ['ABC-1234', 'AB-1234', 'ABC-123', 'abc-1234']],
      ['^(cat|dog)s?$', ['cat', 'dogs', 'cow', 'cats!']],
      ['^\\w+@\\w+\\.com$', ['a_b@x.com', '@x.com', 'a@x.org']],
      ['^[^0-9]*$', ['abc', 'a1', '']],
      ['^a.c$', ['abc', 'a"c', 'ac']],
      ['^x{2,}$', ['x', 'xx', 'xxxxx']],
      ['^(?:ab)+$', ['ab', 'abab', 'aba']],
      ['^["\\\\]$', ['"', '\\', 'a']],
    ];
    for (const [pattern, texts] of cases) {
      for (const text of texts)
        expect(inString(pattern, text), `${pattern} ${text}`).toBe(new RegExp(pattern).test(text));
    }
  });

  it('leaves unanchored ends free, as JSON Schema patterns are searched', () => {
    expect(inString('\\d{3}', 'abc123def')).toBe(true);
    expect(inString('^\\d{3}', '123abc')).toBe(true);
    expect(inString('^\\d{3}', 'a123')).toBe(false);
  });

  it('refuses lookarounds and back-references', () => {
    expect(() => regexToGbnf('a(?!b)')).toThrow(UnsupportedPatternError);
    expect(() => regexToGbnf('(a)\\1')).toThrow(UnsupportedPatternError);
  });
});
