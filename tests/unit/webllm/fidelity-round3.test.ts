/**
 * Issue 28, round 3: conversations the goldens do not have (reasoning inside a Qwen3.5 tool loop,
 * prose and calls in one turn, parallel results, trailing whitespace, effort `none`), rendered by
 * web-llm's own `Conversation` from what intab sends and compared byte for byte with the family's
 * published template (`@huggingface/jinja`); and the Qwen2 families' default system text.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats/model-family';
import type { ChatMessage, FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { request } from '../../helpers/webllm-fakes';
import { type ConvTemplateName, webllmPrompt } from '../../helpers/webllm-prompt';
import { weather } from './families';

const NOW = new Date(Date.UTC(2024, 6, 26, 12));
const call = (id: string, city: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
});
const result = (id: string, content: string): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  name: 'get_weather',
  content,
});

/** NousResearch's template trims each parameter's description, which @huggingface/jinja requires. */
const described: FunctionToolSpec = {
  ...weather,
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'The city name.' } },
    required: ['city'],
  },
};

function published(
  template: string,
  messages: unknown[],
  extra: Record<string, unknown> = {},
  tool: FunctionToolSpec = weather,
): string {
  const source = readFileSync(new URL(`../../fixtures/templates/${template}.jinja`, import.meta.url), 'utf8');
  const tools = [
    {
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    },
  ];
  return new Template(source).render({
    messages,
    tools,
    bos_token: '',
    eos_token: '',
    add_generation_prompt: true,
    ...extra,
  });
}

/** The core's messages as a Hugging Face client hands them to a template (one assistant message a turn). */
function hf(messages: ChatMessage[]): unknown[] {
  const out: Record<string, unknown>[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') {
      out.push({ ...m });
      continue;
    }
    const prev = out[out.length - 1];
    const calls = (m.tool_calls ?? []).map((c) => ({
      ...c,
      function: { ...c.function, arguments: JSON.parse(c.function.arguments) },
    }));
    // The core splits a turn into its text message and its calls; a template sees one message.
    const into = prev?.role === 'assistant' && !m.reasoning ? prev : null;
    const msg = into ?? { role: 'assistant', content: '' };
    if (m.content) msg.content = m.content;
    if (m.reasoning) msg.reasoning_content = m.reasoning;
    if (calls.length) msg.tool_calls = [...((msg.tool_calls as unknown[]) ?? []), ...calls];
    if (!into) out.push(msg);
  }
  return out;
}

async function intab(
  model: string,
  conv: ConvTemplateName,
  messages: ChatMessage[],
  over: Partial<GenerateRequest> = {},
) {
  const { body } = planChatRequest(
    request({ model, messages, tools: [weather], ...over }),
    { vision: false },
    { now: NOW },
  );
  return { body, prompt: await webllmPrompt(conv, body) };
}

const QWEN35 = 'Qwen3.5-0.8B-q4f16_1-MLC';
const loop: ChatMessage[] = [
  { role: 'user', content: 'Weather in Paris and Rome?' },
  { role: 'assistant', content: '  Checking both.\n', reasoning: '\nThe user wants two cities.\n\n' },
  { role: 'assistant', content: null, tool_calls: [call('call_1', 'Paris'), call('call_2', 'Rome')] },
  result('call_1', '{"temp": 21}\n'),
  result('call_2', ' {"temp": 25}'),
];

describe('Qwen3.5: a tool loop is the published template’s, reasoning included', () => {
  it('writes the loop turn’s reasoning, its trimmed text, a blank line, then both calls', async () => {
    const { prompt } = await intab(QWEN35, 'qwen3_5', loop);
    expect(prompt).toBe(published('Qwen3.5-4B', hf(loop)));
    expect(prompt).toContain(
      '<think>\nThe user wants two cities.\n</think>\n\nChecking both.\n\n<tool_call>',
    );
  });

  it('drops the reasoning of turns before the last user message', async () => {
    const messages: ChatMessage[] = [
      ...loop,
      { role: 'assistant', content: 'Paris 21, Rome 25.', reasoning: 'Both came back.' },
      { role: 'user', content: 'Thanks. And Oslo?' },
    ];
    const { prompt } = await intab(QWEN35, 'qwen3_5', messages);
    expect(prompt).toBe(published('Qwen3.5-4B', hf(messages)));
    expect(prompt).not.toContain('two cities');
  });

  it('a loop turn without reasoning still gets its empty block', async () => {
    const messages = loop.map((m) =>
      m.role === 'assistant' ? { ...m, reasoning: undefined } : m,
    ) as ChatMessage[];
    const { prompt } = await intab(QWEN35, 'qwen3_5', messages);
    expect(prompt).toBe(published('Qwen3.5-4B', hf(messages)));
  });

  it('the next prompt extends what web-llm prefilled and decoded (the loop does not re-read its history)', async () => {
    const first = await intab(QWEN35, 'qwen3_5', loop.slice(0, 1));
    const decoded =
      'The user wants two cities.\n</think>\n\nChecking both.\n\n' +
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n' +
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>';
    const next = await intab(QWEN35, 'qwen3_5', [
      loop[0] as ChatMessage,
      { role: 'assistant', content: 'Checking both.', reasoning: 'The user wants two cities.' },
      ...loop.slice(2),
    ]);
    expect(next.prompt.startsWith(first.prompt + decoded)).toBe(true);
  });

  it.each(['none', 'minimal'])('effort %s turns thinking off as the template does', async (effort) => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Hi' }];
    const { body, prompt } = await intab(QWEN35, 'qwen3_5', messages, { reasoningEffort: effort, tools: [] });
    expect(body.extra_body).toEqual({ enable_thinking: false });
    const source = readFileSync(
      new URL('../../fixtures/templates/Qwen3.5-4B.jinja', import.meta.url),
      'utf8',
    );
    const expected = new Template(source).render({
      messages,
      add_generation_prompt: true,
      enable_thinking: false,
    });
    expect(prompt).toBe(expected);
    expect(prompt.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
    // On wllama the GGUF's own template renders it, told through chat_template_kwargs.
    const wllama = await planWllamaRequest(request({ model: 'q35', messages, reasoningEffort: effort }), {
      family: familyOf('Qwen3.5-4B'),
      invalidUtf8: [],
    });
    expect(wllama.params.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(wllama.reply.reasoning).toBeNull();
  });
});

/** NousResearch's template drops the newline after the last tool turn's `<|im_end|>`: a known slip, kept as web-llm writes it. */
const SLIP: [string, string] = [
  '</tool_response><|im_end|><|im_start|>',
  '</tool_response><|im_end|>\n<|im_start|>',
];
const HERMES: Array<[string, ConvTemplateName, string]> = [
  ['Hermes-3-Llama-3.1-8B-q4f16_1-MLC', 'hermes3_llama-3_1', 'NousResearch-Hermes-3-Llama-3.1-8B-tool_use'],
  [
    'Hermes-2-Pro-Llama-3-8B-q4f16_1-MLC',
    'hermes2_pro_llama3',
    'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use',
  ],
  // Its tool_use template is NousResearch's same text (vendored here for Hermes 2 Pro Llama 3).
  [
    'Hermes-2-Pro-Mistral-7B-q4f16_1-MLC',
    'open_hermes_mistral',
    'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use',
  ],
];

describe.each(HERMES)(
  '%s: calls and results as NousResearch’s tool-use template writes them',
  (model, conv, template) => {
    it('parallel results in one tool turn, and the calling turn’s prose dropped', async () => {
      const { prompt } = await intab(model, conv, loop, { tools: [described] });
      const expected = published(template, hf(loop), {}, described);
      expect(expected.split(SLIP[0]).length).toBe(2);
      expect(prompt).toBe(expected.replace(...SLIP));
      expect(prompt).toContain(
        '<|im_start|>tool\n<tool_response>\n{"temp": 21}\n\n</tool_response>\n<tool_response>\n',
      );
      expect(prompt).not.toContain('Checking both');
    });
  },
);

describe.each([
  ['Llama-3.1-8B-Instruct-q4f16_1-MLC', 'meta-llama-Llama-3.1-8B-Instruct'],
  ['Llama-3.2-1B-Instruct-q4f16_1-MLC', 'meta-llama-Llama-3.2-3B-Instruct'],
])('%s: a turn with prose and a call', (model, template) => {
  it('writes the call alone, as Meta’s template does', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Let me check.' },
      { role: 'assistant', content: null, tool_calls: [call('call_1', 'Paris')] },
      result('call_1', '{"temp": 21}'),
    ];
    const { prompt } = await intab(model, 'llama-3_1', messages);
    expect(prompt).toBe(
      published(template, hf(messages), { tools_in_user_message: false, date_string: '26 Jul 2024' }),
    );
    expect(prompt).not.toContain('Let me check');
  });
});

describe('the Qwen2 families’ default system text is their template’s', () => {
  const MATH = 'Please reason step by step, and put your final answer within \\boxed{}.';
  it.each([
    ['Qwen2-1.5B-Instruct-q4f16_1-MLC', 'You are a helpful assistant.'],
    ['Qwen2-Math-1.5B-Instruct-q4f16_1-MLC', MATH],
    ['Qwen2.5-Math-1.5B-Instruct-q4f16_1-MLC', MATH],
    [
      'Qwen2.5-1.5B-Instruct-q4f16_1-MLC',
      'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.',
    ],
  ])('%s', async (model, system) => {
    const { prompt } = await intab(model, 'qwen2', [{ role: 'user', content: 'Hi' }], { tools: [] });
    expect(prompt).toBe(
      `<|im_start|>system\n${system}<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n`,
    );
  });
});
