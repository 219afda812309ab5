/**
 * `strict` on web-llm's grammars (issue 44 §5), compiled and matched by the real web-xgrammar as
 * web-llm receives them (the request's `response_format` after {@link boundJsonWhitespace}): a
 * strict schema's objects are closed; a non-strict one's admit members they do not declare, as JSON
 * Schema has it, unless it says `additionalProperties: false`. xgrammar's `strictMode` closes every
 * silent object, so a non-strict `json_schema` refused `{"a": 1, "a2": null}` here while llama.cpp's
 * grammar took it. wllama reads the same tools the same way (tests/unit/wllama/grammar-strict-tools.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { boundJsonWhitespace, type XGrammarLike } from '../../../src/engine/webllm/webllm-grammar';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { generateRequest } from '../../helpers/generate-request';
import { responseFormatAccepts, xgrammar } from '../../helpers/xgrammar';

/** web-llm's `response_format` for `req`, as the engine hands it over. */
async function heldFormat(over: Partial<GenerateRequest>): Promise<Record<string, unknown>> {
  const { body } = planChatRequest(generateRequest(over), { vision: false });
  const xg = (await xgrammar()) as unknown as XGrammarLike;
  return ((await boundJsonWhitespace(xg, body.response_format)) ?? {}) as Record<string, unknown>;
}

const accepts = async (over: Partial<GenerateRequest>, text: string) =>
  responseFormatAccepts(await heldFormat(over), text);

describe('a json_schema text.format', () => {
  const format = (strict: boolean): GenerateRequest['format'] => ({
    type: 'json_schema',
    name: 'a',
    schema: { properties: { a: { type: 'integer' } } },
    strict,
  });
  const llama = 'Llama-3.2-1B-Instruct-q4f16_1-MLC';
  const qwen3 = 'Qwen3-0.6B-q4f16_1-MLC';

  it('strict false: an undeclared member is allowed, a declared one keeps its schema', async () => {
    expect(await accepts({ model: llama, format: format(false) }, '{"a": 1, "a2": null}')).toBe(true);
    // A required one: xgrammar 0.1.27 takes any key for an undeclared member, so an optional declared
    // name may come back as one with any value (llama.cpp's grammar excludes declared names).
    const required: GenerateRequest['format'] = {
      type: 'json_schema',
      name: 'a',
      schema: { properties: { a: { type: 'integer' } }, required: ['a'] },
      strict: false,
    };
    expect(await accepts({ model: llama, format: required }, '{"a": "x", "a2": null}')).toBe(false);
    // After Qwen3's think block (a structural tag, not web-llm's own JSON grammar).
    const think = '<think>\nok\n</think>\n\n';
    expect(await accepts({ model: qwen3, format: format(false) }, `${think}{"a": 1, "a2": null}`)).toBe(true);
  });

  it('strict true: closed', async () => {
    expect(await accepts({ model: llama, format: format(true) }, '{"a": 1}')).toBe(true);
    expect(await accepts({ model: llama, format: format(true) }, '{"a": 1, "a2": null}')).toBe(false);
  });
});

const params = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const weather = (strict: boolean | null, parameters: Record<string, unknown> = params): FunctionToolSpec => ({
  name: 'get_weather',
  parameters,
  strict,
});
const forced = (model: string, tools: FunctionToolSpec[]): Partial<GenerateRequest> => ({
  model,
  tools,
  toolChoice: 'required',
  reasoningEffort: 'none',
});

/** One call of `get_weather` with `args`, as each family writes it. */
const families: Array<[string, (args: string) => string]> = [
  [
    'Qwen2.5-7B-Instruct-q4f16_1-MLC',
    (a) => `<tool_call>\n{"name": "get_weather", "arguments": ${a}}\n</tool_call>`,
  ],
  ['Llama-3.2-1B-Instruct-q4f16_1-MLC', (a) => `{"name": "get_weather", "parameters": ${a}}`],
  ['Ministral-3-3B-Instruct-2512-q4f16_1-MLC', (a) => `[TOOL_CALLS]get_weather[ARGS]${a}`],
  [
    'Mistral-7B-Instruct-v0.3-q4f16_1-MLC',
    (a) => `[TOOL_CALLS] [{"name": "get_weather", "arguments": ${a}}]`,
  ],
  ['Phi-4-mini-instruct-q4f16_1-MLC', (a) => `functools[{"name": "get_weather", "arguments": ${a}}]`],
];
const extra = '{"city": "Paris", "extra": 1}';

describe.each(families)('%s: a tool’s strict', (model, call) => {
  it('false: an undeclared member is allowed, declared ones keep their schema', async () => {
    expect(await accepts(forced(model, [weather(false)]), call(extra))).toBe(true);
    expect(await accepts(forced(model, [weather(false)]), call('{"city": 12, "extra": 1}'))).toBe(false);
  });

  it('false, with additionalProperties: false: closed', async () => {
    const shut = weather(false, { ...params, additionalProperties: false });
    expect(await accepts(forced(model, [shut]), call('{"city": "Paris"}'))).toBe(true);
    expect(await accepts(forced(model, [shut]), call(extra))).toBe(false);
  });

  it.each([true, null])('%s: closed', async (strict) => {
    expect(await accepts(forced(model, [weather(strict)]), call('{"city": "Paris"}'))).toBe(true);
    expect(await accepts(forced(model, [weather(strict)]), call(extra))).toBe(false);
  });
});

describe('nested objects and a list of both kinds', () => {
  it('Qwen3.5: a non-strict tool’s object parameter is open', async () => {
    const nested = {
      type: 'object',
      properties: { where: { type: 'object', properties: { city: { type: 'string' } } } },
      required: ['where'],
    };
    const text =
      '<tool_call>\n<function=get_weather>\n<parameter=where>\n{"city": "Paris", "zip": "75001"}\n</parameter>\n</function>\n</tool_call>';
    const model = 'Qwen3.5-4B-q4f16_1-MLC';
    expect(await accepts(forced(model, [weather(false, nested)]), text)).toBe(true);
    expect(await accepts(forced(model, [weather(true, nested)]), text)).toBe(false);
  });

  it('Mistral’s one list holds each tool by its own strict', async () => {
    const tools = [weather(false), { ...weather(true), name: 'get_time' }];
    const list = (name: string, a: string) => `[TOOL_CALLS] [{"name": "${name}", "arguments": ${a}}]`;
    const req = forced('Mistral-7B-Instruct-v0.3-q4f16_1-MLC', tools);
    expect(await accepts(req, list('get_weather', extra))).toBe(true);
    expect(await accepts(req, list('get_time', extra))).toBe(false);
    expect(await accepts(req, list('get_time', '{"city": "Paris"}'))).toBe(true);
  });
});
