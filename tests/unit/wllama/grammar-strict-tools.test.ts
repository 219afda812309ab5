/**
 * A tool's `strict` on the llama.cpp engine's grammar (issue 44 §5): a strict tool's objects are
 * closed, as OpenAI's strict mode has them; a non-strict one's admit members they do not declare
 * (JSON Schema's default) unless its schema says `additionalProperties: false`, in every family's
 * markup, and in one Mistral list that holds tools of both kinds. web-llm reads the same tools the
 * same way (tests/unit/webllm/strict-schemas.test.ts).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { heldSchema } from '../../../src/engine/held-schema';
import { familyOf } from '../../../src/engine/tool-formats';
import type { FunctionToolSpec } from '../../../src/engine/types';
import { GbnfBuilder } from '../../../src/engine/wllama/grammar/gbnf';
import { JsonSchemaRules } from '../../../src/engine/wllama/grammar/json-schema-gbnf';
import { requestGrammarPaced } from '../../../src/engine/wllama/grammar/request-grammar';
import { gbnfMatches } from '../../helpers/gbnf-match';

const params = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const weather = (strict: boolean | null, parameters: Record<string, unknown> = params): FunctionToolSpec => ({
  name: 'get_weather',
  parameters,
  strict,
});

async function forced(model: string, tools: FunctionToolSpec[]): Promise<string> {
  return (await requestGrammarPaced({
    format: familyOf(model).tools,
    tools,
    forced: true,
    parallel: false,
    maxToolCalls: null,
    output: { type: 'text' },
    thinking: null,
  })) as string;
}

/** One call of `get_weather` with `args`, as each family writes it. */
const families: Array<[string, (args: string) => string]> = [
  ['Qwen2.5-7B', (a) => `<tool_call>\n{"name": "get_weather", "arguments": ${a}}\n</tool_call>`],
  ['Llama-3.2-1B-Instruct', (a) => `{"name": "get_weather", "parameters": ${a}}`],
  ['Ministral-3-3B-Instruct', (a) => `[TOOL_CALLS]get_weather[ARGS]${a}`],
  ['Mistral-7B-Instruct-v0.3', (a) => `[TOOL_CALLS] [{"name": "get_weather", "arguments": ${a}}]`],
  ['Phi-4-mini-instruct', (a) => `functools[{"name": "get_weather", "arguments": ${a}}]`],
];
const extra = '{"city": "Paris", "extra": 1}';

describe.each(families)('%s: a tool’s strict', (model, call) => {
  it('false: an undeclared member is allowed, declared ones keep their schema', async () => {
    const g = await forced(model, [weather(false)]);
    expect(gbnfMatches(g, call(extra))).toBe(true);
    expect(gbnfMatches(g, call('{"city": "Paris", "more": {"a": [null]}}'))).toBe(true);
    expect(gbnfMatches(g, call('{"city": 12, "extra": 1}'))).toBe(false);
    expect(gbnfMatches(g, call('{"extra": 1}'))).toBe(false);
  });

  it('false, with additionalProperties: false: closed, as JSON Schema means it', async () => {
    const g = await forced(model, [weather(false, { ...params, additionalProperties: false })]);
    expect(gbnfMatches(g, call('{"city": "Paris"}'))).toBe(true);
    expect(gbnfMatches(g, call(extra))).toBe(false);
  });

  it.each([true, null])('%s: closed', async (strict) => {
    const g = await forced(model, [weather(strict)]);
    expect(gbnfMatches(g, call('{"city": "Paris"}'))).toBe(true);
    expect(gbnfMatches(g, call(extra))).toBe(false);
  });
});

describe('nested objects and a list of both kinds', () => {
  it('a non-strict tool’s nested objects are open too', async () => {
    const nested = {
      type: 'object',
      properties: { where: { type: 'object', properties: { city: { type: 'string' } } } },
      required: ['where'],
    };
    const call = (a: string) => `<tool_call>\n{"name": "get_weather", "arguments": ${a}}\n</tool_call>`;
    const open = await forced('Qwen2.5-7B', [weather(false, nested)]);
    const closed = await forced('Qwen2.5-7B', [weather(true, nested)]);
    const text = call('{"where": {"city": "Paris", "zip": "75001"}}');
    expect([gbnfMatches(open, text), gbnfMatches(closed, text)]).toEqual([true, false]);
  });

  it('Mistral’s one list holds each tool by its own strict', async () => {
    const time = { ...weather(true), name: 'get_time' };
    const g = await forced('Mistral-7B-Instruct-v0.3', [weather(false), time]);
    const list = (name: string, a: string) => `[TOOL_CALLS] [{"name": "${name}", "arguments": ${a}}]`;
    expect(gbnfMatches(g, list('get_weather', extra))).toBe(true);
    expect(gbnfMatches(g, list('get_time', extra))).toBe(false);
    expect(gbnfMatches(g, list('get_time', '{"city": "Paris"}'))).toBe(true);
  });
});

describe('heldSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      inner: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      list: { type: 'array', items: { $ref: '#/$defs/item' } },
      pair: { type: 'array', prefixItems: [{ type: 'integer' }] },
      shut: { type: 'object', properties: { s: { type: 'null' } }, additionalProperties: false },
      either: { anyOf: [{ type: 'object', properties: { e: { const: 1 } } }, { type: 'null' }] },
      example: { type: 'object', properties: {}, default: { type: 'object', properties: {} } },
    },
    required: ['id'],
    $defs: { item: { type: 'object', properties: { k: { type: 'boolean' } } } },
  };
  const values = [
    { id: 1 },
    { id: 1, other: 'x' },
    { id: 1, inner: { a: 'y', b: 2 } },
    { id: 1, inner: { b: 2 } },
    { id: 1, list: [{ k: true, z: [] }, {}] },
    { id: 1, list: [{ k: 'no' }] },
    { id: 1, pair: [1, 'two'] },
    { id: 1, shut: { s: null, t: 1 } },
    { id: 1, either: { e: 1, f: 2 } },
    { id: 1, either: { e: 2 } },
    { id: 1, example: { any: true } },
    { other: 'x' },
  ];

  it('non-strict: the closed-by-default grammar of it matches exactly what JSON Schema (ajv) accepts', () => {
    const held = heldSchema(schema, false);
    const g = new GbnfBuilder();
    g.fill(g.reserve('root'), new JsonSchemaRules(g, held).expression(held, ''));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    for (const v of values)
      expect(gbnfMatches(g.toString(), JSON.stringify(v)), JSON.stringify(v)).toBe(validate(v));
  });

  it('leaves data (a default) as it is, and a strict schema untouched', () => {
    const held = heldSchema(schema, false) as { properties: { example: { default: unknown } } };
    expect(held.properties.example.default).toEqual({ type: 'object', properties: {} });
    expect(heldSchema(schema, true)).toBe(schema);
    expect(heldSchema(schema, null)).toBe(schema);
  });
});
