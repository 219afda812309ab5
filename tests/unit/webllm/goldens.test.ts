/**
 * For every supported family, the prompt web-llm builds from what intab sends (web-llm's own
 * `Conversation`, the model's conversation template, the `conv_config` corrections intab passes to
 * `reload`) must equal, byte for byte, what the family's published Jinja chat template renders for
 * the same conversation (`@huggingface/jinja`, templates in tests/fixtures/templates with their
 * sources). Families with a native tool format render tools and tool history through the template
 * itself; the others (taught the `<tool_call>` format by intab) render the messages intab writes, so
 * their turns and markers are checked. BOS is a token id in web-llm, never text, so it renders empty.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { mistralCallId } from '../../../src/engine/tool-formats/mistral';
import type { ChatMessage, FunctionToolSpec } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { request } from '../../helpers/webllm-fakes';
import { type ConvTemplateName, webllmPrompt } from '../../helpers/webllm-prompt';
import { weather } from './families';

interface Golden {
  model: string;
  conv: ConvTemplateName;
  template: string;
  /** The template takes `tools` and `tool_calls` itself (the family's native tool format). */
  native: boolean;
  /** Template variables beyond messages and tools. */
  extra?: Record<string, unknown>;
  /** Gemma 2's template refuses a system turn: the request's system text heads the first user turn. */
  foldSystem?: boolean;
  /** A tool-use template (NousResearch's), which the model's card prescribes only when tools are offered. */
  toolsOnly?: boolean;
  /** The tool offered; `weather` unless the template needs more of it. */
  tool?: FunctionToolSpec;
  /** A known slip of the published template, corrected in the expected text: [what it renders, what intab sends]. */
  slip?: [string, string];
  /** The conversation the slip shows in; every one when absent. */
  slipIn?: string;
  /** Call ids as the template requires them (Mistral's nine characters). */
  callId?: (id: string) => string;
}

/** NousResearch's template trims each parameter's description, which @huggingface/jinja requires. */
const described: FunctionToolSpec = {
  ...weather,
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'The city name. ' },
      unit: { type: 'string', enum: ['c', 'f'], description: 'Celsius or Fahrenheit.' },
      days: { type: 'integer', description: 'Days ahead.' },
    },
    required: ['city'],
  },
};

const GOLDENS: Golden[] = [
  { model: 'Qwen3-0.6B-q4f16_1-MLC', conv: 'qwen3', template: 'Qwen-Qwen3-0.6B', native: true },
  { model: 'Qwen3.5-0.8B-q4f16_1-MLC', conv: 'qwen3_5', template: 'Qwen3.5-4B', native: true },
  {
    model: 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC',
    conv: 'qwen2',
    template: 'Qwen-Qwen2.5-7B-Instruct',
    native: true,
  },
  {
    model: 'Llama-3.1-8B-Instruct-q4f16_1-MLC',
    conv: 'llama-3_1',
    template: 'meta-llama-Llama-3.1-8B-Instruct',
    native: true,
    extra: { tools_in_user_message: false, date_string: '26 Jul 2024' },
  },
  {
    model: 'Llama-3.2-1B-Instruct-q4f16_1-MLC',
    conv: 'llama-3_1',
    template: 'meta-llama-Llama-3.2-3B-Instruct',
    native: true,
    extra: { tools_in_user_message: false, date_string: '26 Jul 2024' },
  },
  {
    model: 'Phi-3.5-mini-instruct-q4f16_1-MLC',
    conv: 'phi-3',
    template: 'microsoft-Phi-3.5-mini-instruct',
    native: false,
  },
  {
    model: 'Phi-4-mini-instruct-q4f16_1-MLC',
    conv: 'phi-4',
    template: 'microsoft-Phi-4-mini-instruct',
    native: false,
  },
  {
    model: 'gemma-2-2b-it-q4f16_1-MLC',
    conv: 'gemma_instruction',
    template: 'google-gemma-2-2b-it',
    native: false,
    foldSystem: true,
  },
  {
    model: 'gemma3-1b-it-q4f16_1-MLC',
    conv: 'gemma3_instruction',
    template: 'google-gemma-3-it',
    native: false,
  },
  {
    model: 'SmolLM2-360M-Instruct-q4f16_1-MLC',
    conv: 'chatml',
    template: 'HuggingFaceTB-SmolLM2-Instruct',
    native: false,
  },
  {
    model: 'DeepSeek-R1-Distill-Qwen-7B-q4f16_1-MLC',
    conv: 'deepseek_r1_qwen',
    template: 'deepseek-ai-DeepSeek-R1-Distill-Qwen-32B',
    native: false,
    extra: { bos_token: '<｜begin▁of▁sentence｜>', enable_thinking: true },
  },
  {
    model: 'Hermes-3-Llama-3.1-8B-q4f16_1-MLC',
    conv: 'hermes3_llama-3_1',
    template: 'NousResearch-Hermes-3-Llama-3.1-8B-tool_use',
    native: true,
    toolsOnly: true,
    tool: described,
    // The template drops the newline after the last tool turn's `<|im_end|>` (every other turn has
    // it, as does NousResearch's function-calling data); web-llm's separator keeps it.
    slip: ['</tool_response><|im_end|><|im_start|>', '</tool_response><|im_end|>\n<|im_start|>'],
  },
  {
    model: 'Hermes-2-Pro-Llama-3-8B-q4f16_1-MLC',
    conv: 'hermes2_pro_llama3',
    template: 'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use',
    native: true,
    toolsOnly: true,
    tool: described,
    // The template drops the newline after the last tool turn's `<|im_end|>` (every other turn has
    // it, as does NousResearch's function-calling data); web-llm's separator keeps it.
    slip: ['</tool_response><|im_end|><|im_start|>', '</tool_response><|im_end|>\n<|im_start|>'],
  },
  {
    model: 'Mistral-7B-Instruct-v0.3-q4f16_1-MLC',
    conv: 'mistral_default',
    template: 'mistralai-Mistral-7B-Instruct-v0.3',
    native: true,
    extra: { eos_token: '</s>' },
    callId: mistralCallId,
    // The template writes the system text only into a user turn that is the last message, so it
    // drops it once tool results follow; mistral_common (Mistral's reference tokenizer, which the
    // template mirrors) prepends it to the last user turn wherever that turn is.
    slip: ['[INST] Weather in Paris?[/INST]', '[INST] You are terse.\n\nWeather in Paris?[/INST]'],
    slipIn: 'tools and tool history',
  },
  {
    model: 'Ministral-3-3B-Reasoning-2512-q4f16_1-MLC',
    conv: 'ministral3_reasoning',
    template: 'mistralai-Ministral-3-14B-Reasoning-2512',
    native: true,
    extra: { eos_token: '</s>' },
  },
];

const NOW = new Date(Date.UTC(2024, 6, 26, 12));
const call = {
  id: 'call_1',
  type: 'function' as const,
  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
};

const CONVERSATIONS: Record<string, { messages: ChatMessage[]; tools: boolean }> = {
  'one user turn': { messages: [{ role: 'user', content: 'Hi' }], tools: false },
  'system and user': {
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Hi' },
    ],
    tools: false,
  },
  'several turns': {
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Weather?' },
    ],
    tools: false,
  },
  'tools, no system': { messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: true },
  'tools and tool history': {
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '{"temp": 21}' },
    ],
    tools: true,
  },
};

function render(golden: Golden, messages: unknown[], tools: boolean): string {
  const tool = golden.tool ?? weather;
  const source = readFileSync(
    new URL(`../../fixtures/templates/${golden.template}.jinja`, import.meta.url),
    'utf8',
  );
  return new Template(source).render({
    messages,
    ...(tools
      ? {
          tools: [
            {
              type: 'function',
              function: {
                name: tool.name,
                description: tool.description,
                parameters: tool.parameters,
              },
            },
          ],
        }
      : {}),
    bos_token: '',
    eos_token: '',
    add_generation_prompt: true,
    ...golden.extra,
  });
}

/** Messages as a Hugging Face client hands them to a template: arguments as objects, content a string. */
function hfMessages(messages: ChatMessage[], callId = (id: string) => id): unknown[] {
  return messages.map((m) => {
    if (m.role === 'tool') return { ...m, tool_call_id: callId(m.tool_call_id) };
    if (m.role !== 'assistant' || !m.tool_calls) return m;
    return {
      ...m,
      content: m.content ?? '',
      tool_calls: m.tool_calls.map((c) => ({
        ...c,
        id: callId(c.id),
        function: { ...c.function, arguments: JSON.parse(c.function.arguments) },
      })),
    };
  });
}

function folded(messages: { role: string; content: unknown }[]): unknown[] {
  const [first, ...rest] = messages;
  if (first?.role !== 'system') return messages;
  const [user, ...after] = rest;
  return [{ ...user, content: `${first.content}\n\n${user?.content}` }, ...after];
}

describe.each(GOLDENS)('$model: web-llm’s prompt is the published template’s', (golden) => {
  const conversations = Object.entries(CONVERSATIONS).filter(([, c]) => c.tools || !golden.toolsOnly);
  it.each(conversations)('%s', async (name, conversation) => {
    const { body } = planChatRequest(
      request({
        model: golden.model,
        messages: conversation.messages,
        tools: conversation.tools ? [golden.tool ?? weather] : [],
      }),
      { vision: false },
      { now: NOW },
    );
    const sent = body.messages as { role: string; content: unknown }[];
    const expected = golden.native
      ? render(golden, hfMessages(conversation.messages, golden.callId), conversation.tools)
      : render(golden, golden.foldSystem ? folded(sent) : sent, false);
    const slipped = golden.slip && (golden.slipIn ?? name) === name;
    const corrected = golden.slip && slipped ? expected.replace(...golden.slip) : expected;
    expect(await webllmPrompt(golden.conv, body)).toBe(corrected);
  });
});
