/**
 * The prompts web-llm builds from the adapter's requests, rendered by web-llm's own Conversation
 * with each family's conversation template, compared with what the families' published chat
 * templates render for the same conversation (goldens rendered from the templates cited in the
 * fixture; only the rendered text is kept here).
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats/model-family';
import type { ChatMessage } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import published from '../../fixtures/webllm/published-prompts.json';
import { request } from '../../helpers/webllm-fakes';
import { type ConvTemplateName, webllmPrompt } from '../../helpers/webllm-prompt';
import { FAMILIES, weather } from './families';

function conversation(callId = 'call_1'): ChatMessage[] {
  return [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: callId, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    { role: 'tool', tool_call_id: callId, name: 'get_weather', content: '{"temp": 21}' },
  ];
}

async function prompt(model: string, conv: ConvTemplateName, over: Parameters<typeof request>[0] = {}) {
  const { body } = planChatRequest(request({ model, tools: [weather], messages: conversation(), ...over }), {
    vision: false,
  });
  return webllmPrompt(conv, body);
}

describe('prompts match the published chat templates', () => {
  it.each(published)('$model ($conv)', async (golden) => {
    const rendered = await prompt(golden.model, golden.conv as ConvTemplateName, {
      messages: conversation(golden.callId),
    });
    if (golden.whole) expect(rendered).toBe(golden.whole);
    for (const segment of golden.segments ?? []) expect(rendered).toContain(segment);
  });
});

describe.each(FAMILIES)('$model through web-llm’s Conversation', (family) => {
  it('renders tool history in the native format and ends at the assistant header', async () => {
    const rendered = await prompt(family.model, family.conv);
    const format = familyOf(family.model).tools;
    const call = format.renderCalls([
      { name: 'get_weather', arguments: '{"city":"Paris"}', callId: 'call_1' },
    ]);
    const result = format.renderResults([{ name: 'get_weather', callId: 'call_1', content: '{"temp": 21}' }]);
    expect(rendered).toContain(call);
    expect(rendered).toContain(result);
    expect(rendered).toContain('get_weather');
    expect(rendered.indexOf(call)).toBeLessThan(rendered.indexOf(result));
  });

  it('asks for JSON in the prompt when the format is JSON', async () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const rendered = await prompt(family.model, family.conv, {
      tools: [],
      messages: [{ role: 'user', content: 'Hi' }],
      format: { type: 'json_schema', name: 'x', schema, strict: true },
    });
    expect(rendered).toContain('in JSON only');
    expect(rendered).toContain(JSON.stringify(schema));
  });
});

describe('reasoning in the prompt', () => {
  it('Qwen3 with effort none: web-llm pre-fills the empty think block', async () => {
    const rendered = await prompt('Qwen3-0.6B-q4f16_1-MLC', 'qwen3', { reasoningEffort: 'none' });
    expect(rendered.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
  });

  it('Qwen3.5 with effort none: the pre-filled empty block follows the bare header, once', async () => {
    const rendered = await prompt('Qwen3.5-0.8B-q4f16_1-MLC', 'qwen3_5', { reasoningEffort: 'none' });
    expect(rendered.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
    expect(rendered).not.toContain('<think>\n<think>');
  });
});
