/**
 * What web-llm finds out only inside prefill, after the headers: a JSON schema its xgrammar cannot
 * compile is refused by `preflight` (a 400 before any header, checked with the real web-xgrammar),
 * and the grammar web-llm receives bounds the whitespace between JSON tokens (web-llm compiles JSON
 * with xgrammar's any-whitespace default, where a small model can loop until max_tokens).
 */
import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../../src/engine/types';
import { MAX_JSON_WHITESPACE } from '../../../src/engine/webllm/webllm-grammar';
import { makeRig } from '../../helpers/server';
import { collect, LLAMA, QWEN3, rejection, request, setup } from '../../helpers/webllm-fakes';
import { responseFormatAccepts } from '../../helpers/xgrammar';
import { weather } from './families';

const BAD_SCHEMA = { type: 'object', properties: { n: { type: 'integer', minimum: 5, maximum: 2 } } };
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city', 'days'],
  additionalProperties: false,
};
const jsonFormat = (schema: Record<string, unknown>): GenerateRequest['format'] => ({
  type: 'json_schema',
  name: 'forecast',
  schema,
  strict: true,
});

describe('WebLLMEngine.preflight compiles the request’s schemas', () => {
  it('refuses a text.format schema xgrammar cannot compile with a 400, before any load', async () => {
    const { engine, fake } = setup();
    const err = await rejection(engine.preflight(LLAMA, request({ format: jsonFormat(BAD_SCHEMA) })));
    expect([err.status, err.type, err.code, err.param]).toEqual([
      400,
      'invalid_request_error',
      'invalid_json_schema',
      'text.format.schema',
    ]);
    expect(err.message).toMatch(/^Invalid schema for response_format 'forecast'/);
    expect(fake).toThrow('engine not created');
  });

  it('refuses a tool whose parameters xgrammar cannot compile', async () => {
    const { engine } = setup();
    const bad = { ...weather, name: 'bad', parameters: { type: 'wat' } };
    const err = await rejection(engine.preflight(LLAMA, request({ tools: [weather, bad] })));
    expect([err.status, err.code, err.param]).toEqual([400, 'invalid_function_parameters', 'tools']);
    expect(err.message).toMatch(/'bad'/);
  });

  it('passes compilable schemas, and tools the choice leaves out are not compiled', async () => {
    const { engine } = setup();
    await engine.preflight(LLAMA, request({ format: jsonFormat(SCHEMA), tools: [weather] }));
    const bad = { ...weather, name: 'bad', parameters: { type: 'wat' } };
    await engine.preflight(LLAMA, request({ tools: [bad], toolChoice: 'none' }));
  });

  it('answers POST /v1/responses with the 400 as JSON, not a failed stream', async () => {
    const { engine } = setup();
    const { call } = makeRig({ engine });
    const res = await call('POST', '/responses', {
      model: LLAMA,
      input: 'Weather?',
      stream: true,
      text: { format: { type: 'json_schema', name: 'forecast', schema: BAD_SCHEMA, strict: true } },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_json_schema');
  });
});

describe('POST /v1/chat/completions names its own params', () => {
  it('a schema xgrammar cannot compile is a 400 on response_format.json_schema.schema', async () => {
    const { engine } = setup();
    const { call } = makeRig({ engine });
    const res = await call('POST', '/chat/completions', {
      model: LLAMA,
      messages: [{ role: 'user', content: 'Weather?' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'forecast', schema: BAD_SCHEMA, strict: true },
      },
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; param: string } };
    expect([error.code, error.param]).toEqual(['invalid_json_schema', 'response_format.json_schema.schema']);
  });

  it('a tool whose parameters xgrammar cannot compile is a 400 on tools', async () => {
    const { engine } = setup();
    const { call } = makeRig({ engine });
    const res = await call('POST', '/chat/completions', {
      model: LLAMA,
      messages: [{ role: 'user', content: 'Weather?' }],
      // Valid JSON Schema, and satisfiable, so the core's own check lets it through; xgrammar 0.1.27
      // cannot compile minProperties.
      tools: [
        { type: 'function', function: { name: 'bad', parameters: { type: 'object', minProperties: 1 } } },
      ],
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; param: string } };
    expect([error.code, error.param]).toEqual(['invalid_function_parameters', 'tools']);
  });
});

describe('the JSON grammar web-llm receives bounds whitespace', () => {
  const pretty = '{\n  "city": "Paris",\n  "days": 3\n}';
  const looping = `{${' '.repeat(MAX_JSON_WHITESPACE + 1)}"city": "Paris", "days": 3}`;

  it.each([
    ['a json_schema text.format', LLAMA, { format: jsonFormat(SCHEMA) }],
    ['json_object', LLAMA, { format: { type: 'json_object' } as const }],
    ['JSON after Qwen3’s think block', QWEN3, { format: jsonFormat(SCHEMA) }],
  ])('%s', async (_, model, over) => {
    const { engine, fake } = setup();
    await collect(engine.generate(request({ model, ...over }), new AbortController().signal));
    const format = fake().requests[0]?.response_format ?? {};
    const think = model === QWEN3 ? '<think>\nok\n</think>\n\n' : '';
    expect(await responseFormatAccepts(format, `${think}{"city": "Paris", "days": 3}`)).toBe(true);
    expect(await responseFormatAccepts(format, think + pretty)).toBe(true);
    expect(await responseFormatAccepts(format, think + looping)).toBe(false);
  });

  it('in tool-call arguments', async () => {
    const { engine, fake } = setup();
    await collect(
      engine.generate(
        request({ model: LLAMA, tools: [weather], toolChoice: 'required' }),
        new AbortController().signal,
      ),
    );
    const format = fake().requests[0]?.response_format ?? {};
    const call = (gap: string) => `{"name": "get_weather", "parameters": {${gap}"city": "Paris"}}`;
    expect(await responseFormatAccepts(format, call(''))).toBe(true);
    expect(await responseFormatAccepts(format, call(' '.repeat(MAX_JSON_WHITESPACE + 1)))).toBe(false);
  });
});
