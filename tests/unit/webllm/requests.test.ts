/**
 * Every request the web-llm adapter builds, for every family and every tool/format/reasoning
 * combination, must pass web-llm's own request validator and have a `response_format` that the
 * real xgrammar compiles over a real vocabulary, as web-llm's pipeline compiles it.
 */
import { ModelType, postInitAndCheckFieldsChatCompletion } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, GenerateRequest } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { llama3Tokenizer, tokenizerOf } from '../../helpers/tokenizers';
import { request } from '../../helpers/webllm-fakes';
import { compileResponseFormat } from '../../helpers/xgrammar';
import { clock, FAMILIES, weather } from './families';

const history: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Weather in Paris and Rome?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '{"temp": 21}' },
  { role: 'tool', tool_call_id: 'call_2', name: 'get_weather', content: '{"temp": 25}' },
];

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

const SCENARIOS: Record<string, Partial<GenerateRequest>> = {
  text: {},
  'tools auto': { tools: [weather, clock] },
  'tools required': { tools: [weather, clock], toolChoice: 'required' },
  'named tool, no parallel calls': {
    tools: [weather, clock],
    toolChoice: { name: 'get_weather' },
    parallelToolCalls: false,
  },
  'tools auto + json_schema': {
    tools: [weather],
    format: { type: 'json_schema', name: 'a', schema, strict: true },
  },
  json_object: { format: { type: 'json_object' }, messages: [{ role: 'user', content: 'Reply in JSON.' }] },
  json_schema: { format: { type: 'json_schema', name: 'a', schema, strict: true } },
  'tool history, then the answer': { messages: history, tools: [weather] },
  'tool history, tools none': { messages: history, tools: [weather], toolChoice: 'none' },
  'reasoning off': { reasoningEffort: 'none', tools: [weather] },
  'logprobs, limits': { topLogprobs: 3, maxOutputTokens: 64, temperature: 0.5, topP: 0.9 },
};

describe.each(FAMILIES)('$model', (family) => {
  it.each(Object.entries(SCENARIOS))('%s: passes web-llm’s validator and xgrammar', async (_, over) => {
    const { body } = planChatRequest(request({ model: family.model, ...over }), { vision: false });
    // The validator mutates what it checks (Hermes prompts); give it a copy.
    expect(() =>
      postInitAndCheckFieldsChatCompletion(structuredClone(body), family.model, ModelType.LLM),
    ).not.toThrow();
    // Over the family's own vocabulary where the tests have it, Llama 3's otherwise.
    if (body.response_format)
      await compileResponseFormat(body.response_format, tokenizerOf(family.model) ?? llama3Tokenizer());
  });
});

describe('web-llm’s validator, as the adapter meets it', () => {
  it('would refuse what the adapter no longer sends: a reply to prefill and tools for a non-Hermes model', () => {
    // The checks the adapter must keep out of web-llm's way, proved to be real.
    const model = 'Qwen3-0.6B-q4f16_1-MLC';
    const base = { model, messages: [{ role: 'user' as const, content: 'Hi' }], stream: true as const };
    expect(() =>
      postInitAndCheckFieldsChatCompletion(
        { ...base, messages: [...base.messages, { role: 'assistant', content: 'Hel' }] },
        model,
        ModelType.LLM,
      ),
    ).toThrow(/Last message should be from either `user` or `tool`/);
    expect(() =>
      postInitAndCheckFieldsChatCompletion(
        { ...base, tools: [{ type: 'function', function: { name: 'f' } }] },
        model,
        ModelType.LLM,
      ),
    ).toThrow();
  });
});
