/**
 * The grammar of a whole request on the llama.cpp engine: tool calls in the family's markup (forced,
 * parallel, under 'auto'), a JSON format beside them, think blocks first. Each grammar is parsed and run
 * by an independent recognizer (tests/helpers/gbnf-match.ts). (The same grammars run in real llama.cpp
 * in tests/e2e/wllama-tool-choice.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import { GrammarError, requestGrammarPaced } from '../../../src/engine/wllama/grammar/request-grammar';
import { gbnfMatches } from '../../helpers/gbnf-match';

describe('request grammars', () => {
  const weather = {
    name: 'get_weather',
    description: 'Weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } },
      required: ['city', 'unit'],
      additionalProperties: false,
    },
    strict: true,
  };
  const lookup = {
    name: 'lookup',
    parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    strict: true,
  };
  const llama3 = familyOf('Llama-3-8B-Instruct').tools;
  const base = {
    format: llama3,
    parallel: false,
    maxToolCalls: null,
    output: { type: 'text' as const },
    thinking: null,
  };

  it('is null for free text', async () => {
    expect(await requestGrammarPaced({ ...base, tools: [], forced: false })).toBeNull();
  });

  it("forces a Llama 3 call from the first token under 'required', arguments by schema", async () => {
    const g = (await requestGrammarPaced({ ...base, tools: [weather, lookup], forced: true })) as string;
    expect(gbnfMatches(g, '{"name": "get_weather", "parameters": {"city": "Paris", "unit": "c"}}')).toBe(
      true,
    );
    expect(gbnfMatches(g, '<|python_tag|>{"name": "lookup", "parameters": {"id": 4}}')).toBe(true);
    expect(gbnfMatches(g, '{"name": "get_weather", "parameters": {"city": "Paris"}}')).toBe(false);
    expect(gbnfMatches(g, '{"name": "nope", "parameters": {}}')).toBe(false);
    expect(gbnfMatches(g, 'Sure! {"name": "lookup", "parameters": {"id": 4}}')).toBe(false);
    // One call unless parallel calls are on.
    expect(
      gbnfMatches(
        g,
        '{"name": "lookup", "parameters": {"id": 4}}; {"name": "lookup", "parameters": {"id": 5}}',
      ),
    ).toBe(false);
  });

  it('allows parallel calls up to max_tool_calls, in the family separator', async () => {
    const g = (await requestGrammarPaced({
      ...base,
      tools: [lookup],
      forced: true,
      parallel: true,
      maxToolCalls: 2,
    })) as string;
    const call = (n: number) => `{"name": "lookup", "parameters": {"id": ${n}}}`;
    expect(gbnfMatches(g, `${call(1)}; ${call(2)}`)).toBe(true);
    expect(gbnfMatches(g, `${call(1)}; ${call(2)}; ${call(3)}`)).toBe(false);
    const hermes = (await requestGrammarPaced({
      ...base,
      format: familyOf('Qwen2.5-7B').tools,
      tools: [lookup],
      forced: true,
      parallel: true,
    })) as string;
    const tag = (n: number) => `<tool_call>\n{"name": "lookup", "arguments": {"id": ${n}}}\n</tool_call>`;
    expect(gbnfMatches(hermes, `${tag(1)}\n${tag(2)}`)).toBe(true);
  });

  it("under 'auto' lets prose through but holds an opened call to its schema", async () => {
    const g = (await requestGrammarPaced({ ...base, tools: [lookup], forced: false })) as string;
    expect(gbnfMatches(g, 'It is sunny.')).toBe(true);
    expect(gbnfMatches(g, '{"name": "lookup", "parameters": {"id": 4}}')).toBe(true);
    expect(gbnfMatches(g, '{"name": "lookup", "parameters": {"id": "four"}}')).toBe(false);
  });

  it('a JSON format alone, or beside tools under auto (the answer or a call)', async () => {
    const output = {
      type: 'json_schema' as const,
      name: 'x',
      schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      strict: true,
    };
    const alone = (await requestGrammarPaced({ ...base, tools: [], forced: false, output })) as string;
    expect(gbnfMatches(alone, '{"ok": true}')).toBe(true);
    expect(gbnfMatches(alone, 'ok')).toBe(false);
    const both = (await requestGrammarPaced({ ...base, tools: [lookup], forced: false, output })) as string;
    expect(gbnfMatches(both, '{"ok": false}')).toBe(true);
    expect(gbnfMatches(both, '{"name": "lookup", "parameters": {"id": 1}}')).toBe(true);
    expect(gbnfMatches(both, 'prose')).toBe(false);
  });

  it('puts a free think block first for models that always think', async () => {
    const qwen3 = familyOf('Qwen3-8B');
    const g = (await requestGrammarPaced({
      ...base,
      format: qwen3.tools,
      tools: [lookup],
      forced: true,
      thinking: qwen3.reasoning,
    })) as string;
    const call = '<tool_call>\n{"name": "lookup", "arguments": {"id": 2}}\n</tool_call>';
    expect(gbnfMatches(g, `<think>\nI should look it up.\n</think>\n\n${call}`)).toBe(true);
    expect(gbnfMatches(g, call)).toBe(false);
  });

  it('writes Qwen3.5 XML parameters and Mistral call lists', async () => {
    const qwen35 = (await requestGrammarPaced({
      ...base,
      format: familyOf('Qwen3.5-4B').tools,
      tools: [weather],
      forced: true,
    })) as string;
    expect(
      gbnfMatches(
        qwen35,
        '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=unit>\nc\n</parameter>\n</function>\n</tool_call>',
      ),
    ).toBe(true);
    const mistral = (await requestGrammarPaced({
      ...base,
      format: familyOf('Mistral-7B-Instruct-v0.3').tools,
      tools: [lookup],
      forced: true,
      parallel: true,
    })) as string;
    expect(
      gbnfMatches(
        mistral,
        '[TOOL_CALLS] [{"name": "lookup", "arguments": {"id": 1}}, {"name": "lookup", "arguments": {"id": 2}}]',
      ),
    ).toBe(true);
  });

  it('names the tool whose schema cannot be enforced', async () => {
    const bad = {
      name: 'bad',
      parameters: { type: 'object', properties: { n: { type: 'integer', multipleOf: 2 } } },
      strict: true,
    };
    try {
      await requestGrammarPaced({ ...base, tools: [lookup, bad], forced: true });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(GrammarError);
      expect((err as GrammarError).param).toBe('tools[1].parameters');
    }
  });
});
