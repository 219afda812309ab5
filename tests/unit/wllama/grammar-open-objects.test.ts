/**
 * Objects whose schema does not say `additionalProperties` (issue 33 §1): `json_object` is any JSON
 * object (as llama.cpp's JSON mode and web-llm's JSON grammar allow), a non-strict `json_schema`
 * admits members it does not declare (JSON Schema's default), a strict one keeps its objects closed,
 * and an object schema that names no property (`{type: 'object'}`) is any object, as llama.cpp reads it.
 * Each grammar runs in an independent recognizer (tests/helpers/gbnf-match.ts); ajv says which
 * values JSON Schema accepts.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import { GbnfBuilder } from '../../../src/engine/wllama/grammar/gbnf';
import { JsonSchemaRules } from '../../../src/engine/wllama/grammar/json-schema-gbnf';
import { checkLlamaGrammarPaced } from '../../../src/engine/wllama/grammar/llama-limits';
import { requestGrammarPaced } from '../../../src/engine/wllama/grammar/request-grammar';
import { gbnfMatches, parseGbnf } from '../../helpers/gbnf-match';

const base = {
  format: familyOf('Qwen2.5-7B').tools,
  tools: [],
  forced: false,
  parallel: false,
  maxToolCalls: null,
  thinking: null,
};

/** The grammar of `schema` with objects open (as a non-strict format has them). */
function openGrammar(schema: Record<string, unknown>): string {
  const g = new GbnfBuilder();
  g.fill(g.reserve('root'), new JsonSchemaRules(g, schema, '', true).expression(schema, ''));
  return g.toString();
}

const point = {
  type: 'object',
  properties: { x: { type: 'integer' }, tag: { type: 'string' } },
  required: ['x'],
};

const jsonObjectGrammar = (await requestGrammarPaced({ ...base, output: { type: 'json_object' } })) as string;

describe('json_object on the llama.cpp engine', () => {
  const g = jsonObjectGrammar;

  it('admits any JSON object, members of every kind included', () => {
    for (const text of [
      '{}',
      '{"answer": 42}',
      '{"name": "Ada", "langs": ["en", "fr"], "meta": {"ok": true, "n": null}}',
      '{\n  "a": 1,\n  "b": -2.5e3\n}',
    ]) {
      expect(gbnfMatches(g, text), text).toBe(true);
    }
  });

  it('refuses what is not one object', () => {
    for (const text of ['[1, 2]', '"text"', '42', '{"a": }', '{"a": 1} {"b": 2}', 'Sure: {"a": 1}']) {
      expect(gbnfMatches(g, text), text).toBe(false);
    }
  });
});

describe('json_schema formats', () => {
  const grammar = async (strict: boolean) =>
    (await requestGrammarPaced({
      ...base,
      output: { type: 'json_schema', name: 'point', schema: point, strict },
    })) as string;

  it('non-strict: undeclared members are allowed, declared ones still hold to their schema', async () => {
    const g = await grammar(false);
    expect(gbnfMatches(g, '{"x": 1}')).toBe(true);
    expect(gbnfMatches(g, '{"x": 1, "tag": "a", "note": "extra", "more": [1, {"y": null}]}')).toBe(true);
    expect(gbnfMatches(g, '{"x": "one", "note": "extra"}')).toBe(false);
    expect(gbnfMatches(g, '{"note": "extra"}')).toBe(false);
  });

  it('strict: objects stay closed', async () => {
    const g = await grammar(true);
    expect(gbnfMatches(g, '{"x": 1, "tag": "a"}')).toBe(true);
    expect(gbnfMatches(g, '{"x": 1, "note": "extra"}')).toBe(false);
  });

  it('an explicit additionalProperties wins either way', async () => {
    const closed = { ...point, additionalProperties: false };
    const typed = { ...point, additionalProperties: { type: 'boolean' } };
    const run = async (schema: Record<string, unknown>) =>
      (await requestGrammarPaced({
        ...base,
        output: { type: 'json_schema', name: 's', schema, strict: false },
      })) as string;
    expect(gbnfMatches(await run(closed), '{"x": 1, "note": true}')).toBe(false);
    expect(gbnfMatches(await run(typed), '{"x": 1, "note": true}')).toBe(true);
    expect(gbnfMatches(await run(typed), '{"x": 1, "note": "no"}')).toBe(false);
  });
});

describe('the key of an undeclared member', () => {
  const schema = {
    type: 'object',
    properties: { id: { type: 'integer' }, idx: { type: 'integer' }, '': { type: 'null' }, 'a"b': {} },
  };
  it('is a grammar llama.cpp accepts', async () => {
    await expect(checkLlamaGrammarPaced(openGrammar(schema))).resolves.not.toThrow();
  });

  it('is no declared name, so a declared member cannot come again with a value of any type', () => {
    const rules = parseGbnf(openGrammar(schema));
    for (const key of ['id', 'idx', '']) {
      expect(gbnfMatches(rules, `{"id": 1, ${JSON.stringify(key)}: "x"}`), key).toBe(false);
    }
  });

  it('may be a prefix, an extension or a neighbour of one, or need escapes', () => {
    const rules = parseGbnf(openGrammar(schema));
    for (const key of ['i', 'idxx', 'ida', 'idy', 'x', 'I', 'a', 'a"', 'é😀', 'tab	here']) {
      expect(gbnfMatches(rules, `{"id": 1, ${JSON.stringify(key)}: "x"}`), key).toBe(true);
    }
  });
});

describe('open objects agree with JSON Schema', () => {
  const ajv = new Ajv2020({ strict: false });
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      inner: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      list: { type: 'array', items: { type: 'object', properties: { k: { type: 'boolean' } } } },
    },
    required: ['id'],
  };
  const values = [
    { id: 1 },
    { id: 1, other: 'x' },
    { id: 1, inner: { a: 'y', b: 2 } },
    { id: 1, inner: { b: 2 } },
    { id: 1, list: [{ k: true, z: [] }, {}] },
    { id: 1, list: [{ k: 'no' }] },
    { other: 'x' },
  ];

  it('a value matches the open grammar exactly when ajv accepts it', () => {
    const rules = parseGbnf(openGrammar(schema));
    const validate = ajv.compile(schema);
    for (const v of values) {
      expect(gbnfMatches(rules, JSON.stringify(v)), JSON.stringify(v)).toBe(validate(v));
    }
  });
});

describe('tool arguments', () => {
  it("a parameter typed only 'object' takes any object (llama.cpp's reading); declared ones stay closed", async () => {
    const tool = {
      name: 'configure',
      parameters: {
        type: 'object',
        properties: { options: { type: 'object' }, id: { type: 'integer' } },
        required: ['options', 'id'],
      },
      strict: true,
    };
    const g = (await requestGrammarPaced({
      ...base,
      tools: [tool],
      forced: true,
      output: { type: 'text' },
    })) as string;
    const call = (args: string) => `<tool_call>\n{"name": "configure", "arguments": ${args}}\n</tool_call>`;
    expect(gbnfMatches(g, call('{"options": {"depth": 2, "fast": true}, "id": 1}'))).toBe(true);
    expect(gbnfMatches(g, call('{"options": {}, "id": 1}'))).toBe(true);
    expect(gbnfMatches(g, call('{"options": {}, "id": 1, "extra": 0}'))).toBe(false);
  });
});
