/**
 * Issue 33: prompts checked against llama.cpp's own rendering (the CI-built `llama-server`'s
 * `/apply-template`), not `@huggingface/jinja`, which is not Python's Jinja (`strip('\n')` strips
 * all whitespace there). For wllama, llama.cpp *is* the renderer: intab's inputs rendered by it must
 * equal what llama.cpp renders from the same conversation sent as an OpenAI client sends it (its
 * `tools` field, which makes llama.cpp pick a GGUF's `tool_use` template). For web-llm it is the
 * Python-faithful reference of the published template.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestModel } from '../../scripts/build-test-gguf.mjs';
import { familyOf } from '../../src/engine/tool-formats';
import { openAiTool } from '../../src/engine/tool-formats/shared';
import type { ChatMessage, GenerateRequest } from '../../src/engine/types';
import { planChatRequest } from '../../src/engine/webllm/webllm-request';
import { detectFamily } from '../../src/engine/wllama/gguf-family';
import { readGgufHeader } from '../../src/engine/wllama/gguf-header';
import { ggufFacts } from '../../src/engine/wllama/wllama-instance';
import { planWllamaRequest } from '../../src/engine/wllama/wllama-request';
import { generateRequest } from '../helpers/generate-request';
import { type LlamaRenderer, llamaRenderer } from '../helpers/llama-render';
import { LLAMA_BUILD_MS } from '../helpers/llama-server';
import {
  WEATHER_CALL as call,
  WEATHER_LOOP as loop,
  CURRENT_WEATHER as weather,
} from '../helpers/tool-specs';
import { webllmPrompt } from '../helpers/webllm-prompt';

/** The same loop as an OpenAI client sends it to llama.cpp. */
const openAiLoop = [
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: '', tool_calls: [call] },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 21}' },
];

/** llama.cpp's rendering of wllama's planned request, with the template llama.cpp was loaded with. */
async function wllamaPrompt(renderer: LlamaRenderer, req: GenerateRequest, family = familyOf(req.model)) {
  const { params } = await planWllamaRequest(req, { family, invalidUtf8: [] });
  return renderer.render({
    messages: params.messages,
    ...(params.chat_template_kwargs ? { chat_template_kwargs: params.chat_template_kwargs } : {}),
  });
}

const renderers: LlamaRenderer[] = [];
async function renderer(opts: Parameters<typeof llamaRenderer>[0]): Promise<LlamaRenderer> {
  const r = await llamaRenderer(opts);
  renderers.push(r);
  return r;
}
afterAll(async () => {
  await Promise.all(renderers.map((r) => r.stop()));
});

describe('a Hermes GGUF as the converter writes it, on wllama (item 2)', () => {
  let reference: LlamaRenderer;
  let intab: LlamaRenderer;
  let facts: ReturnType<typeof ggufFacts>;
  beforeAll(async () => {
    const { path } = await ensureTestModel('tiny-hermes-converted');
    facts = ggufFacts(await readGgufHeader(new Blob([readFileSync(path)])), 'hermes');
    // llama.cpp with the GGUF's own two templates, as a client with `tools` uses it…
    reference = await renderer({ model: 'tiny-hermes-converted' });
    // …and with the template intab loads it with.
    intab = await renderer({ source: facts.chatTemplate ?? '' });
  }, LLAMA_BUILD_MS);

  it('renders the tool list and the past call as llama.cpp renders them with tools', async () => {
    expect(facts.family.id).toBe('hermes');
    const expected = await reference.render({ messages: openAiLoop, tools: [openAiTool(weather)] });
    expect(expected).toContain('<tools> {"type": "function"');
    const req = generateRequest({ model: 'hermes', messages: loop, tools: [weather] });
    expect(await wllamaPrompt(intab, req, facts.family)).toBe(expected);
  });

  it('renders them under `tool_choice: none` as llama.cpp does with the client’s tools (issue 44, item 3)', async () => {
    const expected = await reference.render({
      messages: openAiLoop,
      tools: [openAiTool(weather)],
      tool_choice: 'none',
    });
    expect(expected).toContain('<tool_call>\n{"name": "get_weather"');
    expect(expected).toContain('<tool_response>\n{"temp": 21}');
    const req = generateRequest({ model: 'hermes', messages: loop, tools: [weather], toolChoice: 'none' });
    expect(await wllamaPrompt(intab, req, facts.family)).toBe(expected);
  });

  it('renders a request without tools with the default template, as llama.cpp does', async () => {
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    const expected = await reference.render({ messages });
    expect(expected).not.toContain('<tools>');
    expect(await wllamaPrompt(intab, generateRequest({ model: 'hermes', messages }), facts.family)).toBe(
      expected,
    );
  });
});

describe('a Mistral v0.3 GGUF whose template predates tools, on wllama (item 2)', () => {
  it(
    'renders the tools, the call and the result as intab writes them, in turns the template accepts',
    async () => {
      const source =
        "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}";
      const r = await renderer({ source });
      const metadata = new Map<string, unknown>([
        ['general.name', 'Mistral-7B-Instruct-v0.3'],
        ['tokenizer.chat_template', source],
      ]);
      const family = ggufFacts({ metadata } as never, 'mistral').family;
      expect(family.id).toBe('mistral');
      const req = generateRequest({
        model: 'mistral',
        messages: [{ role: 'system', content: 'Be brief.' }, ...loop],
        tools: [weather],
      });
      const prompt = await wllamaPrompt(r, req, family);
      expect(prompt).toContain('[AVAILABLE_TOOLS]');
      expect(prompt).toContain('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}');
      expect(prompt).toContain('[TOOL_RESULTS]');
      expect(prompt).toContain('Be brief.');
    },
    LLAMA_BUILD_MS,
  );
});

describe('Llama 3.1 on wllama says the published date (item 6)', () => {
  it(
    "writes the template's own default date, where llama.cpp alone writes today's",
    async () => {
      const source = readFileSync(
        new URL('../fixtures/templates/meta-llama-Llama-3.1-8B-Instruct.jinja', import.meta.url),
        'utf8',
      );
      const r = await renderer({ source });
      const family = ggufFacts(
        {
          metadata: new Map<string, unknown>([
            ['general.architecture', 'llama'],
            ['tokenizer.chat_template', source],
          ]),
        } as never,
        'llama',
      ).family;
      const req = generateRequest({ model: 'llama', messages: [{ role: 'user', content: 'Hi' }] });
      expect(await wllamaPrompt(r, req, family)).toContain('Today Date: 26 Jul 2024\n');
      // The control: llama.cpp's own date_string is today's.
      expect(await r.render({ messages: [{ role: 'user', content: 'Hi' }] })).not.toContain('26 Jul 2024');
    },
    LLAMA_BUILD_MS,
  );
});

describe('QwQ on wllama (item 3)', () => {
  it(
    'hands its template the tools, rendered as llama.cpp renders a client’s tools',
    async () => {
      const source = readFileSync(
        new URL('../fixtures/templates/Qwen-QwQ-32B.jinja', import.meta.url),
        'utf8',
      );
      const r = await renderer({ source });
      const family = detectFamily({ chatTemplate: source });
      expect(family.id).toBe('qwq');
      const expected = await r.render({ messages: openAiLoop, tools: [openAiTool(weather)] });
      expect(expected.endsWith('<|im_start|>assistant\n<think>\n')).toBe(true);
      const req = generateRequest({ model: 'qwq', messages: loop, tools: [weather] });
      expect(await wllamaPrompt(r, req, family)).toBe(expected);
    },
    LLAMA_BUILD_MS,
  );
});

describe('QwQ on web-llm (item 3)', () => {
  it(
    'writes its own tool prompt (an empty system text before the tools) and opens the think block',
    async () => {
      const r = await renderer({ template: 'Qwen-QwQ-32B' });
      const model = 'QwQ-32B-q4f16_1-MLC';
      for (const messages of [loop, [{ role: 'system' as const, content: 'Be brief.' }, ...loop]]) {
        const expected = await r.render({
          messages: messages.map((m) =>
            m.role === 'tool'
              ? { role: 'tool', tool_call_id: m.tool_call_id, content: m.content }
              : m.role === 'assistant'
                ? openAiLoop[1]
                : m,
          ),
          chat_template_kwargs: { tools: [openAiTool(weather)] },
        });
        const { body } = planChatRequest(generateRequest({ model, messages, tools: [weather] }), {
          vision: false,
        });
        expect(await webllmPrompt('qwen2', body)).toBe(expected);
      }
    },
    LLAMA_BUILD_MS,
  );
});

describe('Qwen3 on web-llm keeps past reasoning as the template writes it (item 10)', () => {
  it(
    'strips only the newlines around a loop turn’s reasoning, as Python’s strip("\\n")',
    async () => {
      const r = await renderer({ template: 'Qwen-Qwen3-0.6B' });
      const reasoning = '  The user wants Paris.  ';
      const messages: ChatMessage[] = [
        loop[0] as ChatMessage,
        { role: 'assistant', content: null, tool_calls: [call], reasoning },
        loop[2] as ChatMessage,
      ];
      const expected = await r.render({
        messages: [openAiLoop[0], { ...openAiLoop[1], reasoning_content: reasoning }, openAiLoop[2]],
        tools: [openAiTool(weather)],
      });
      expect(expected).toContain(`<think>\n${reasoning}\n</think>`);
      const model = 'Qwen3-0.6B-q4f16_1-MLC';
      const { body } = planChatRequest(generateRequest({ model, messages, tools: [weather] }), {
        vision: false,
      });
      expect(await webllmPrompt('qwen3', body)).toBe(expected);
    },
    LLAMA_BUILD_MS,
  );
});
