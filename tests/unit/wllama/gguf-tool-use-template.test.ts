/**
 * Issue 33, item 2 (wllama): NousResearch's repositories ship two templates, and llama.cpp's
 * converter writes `default` (plain ChatML) as `tokenizer.chat_template` and the other as
 * `tokenizer.chat_template.tool_use`. llama.cpp renders with `tool_use` only when the request has
 * `tools`, which intab never sends (it hands the tools as a template variable), so a Hermes GGUF lost
 * its tool list and every past call. Now llama.cpp is loaded with a template that makes llama.cpp's
 * choice on the variable intab sets. Also: a GGUF whose template predates its family's tools
 * (Mistral 7B v0.3 converted early) gets intab's own tool text, and Meta's Llama 3.1 template its
 * literal date (item 6). tests/unit/wllama/llama-cpp-reference.test.ts checks the renderings with
 * llama.cpp itself.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { parseGgufHeader } from '../../../src/engine/wllama/gguf-header';
import { templateInputs } from '../../../src/engine/wllama/template-inputs';
import { ggufFacts } from '../../../src/engine/wllama/wllama-instance';
import { generateRequest } from '../../helpers/generate-request';
import { type GgufEntry, ggufBytes } from '../../helpers/tiny-gguf';
import { WEATHER_LOOP as loop, CURRENT_WEATHER as weather } from '../../helpers/tool-specs';
import { fakeWllamaEngine, runEngine } from '../../helpers/wllama-engine-rig';
import type { FakeWllama } from '../../helpers/wllama-fakes';

const template = (name: string) =>
  readFileSync(new URL(`../../fixtures/templates/${name}.jinja`, import.meta.url), 'utf8');

/** NousResearch's `default` template (plain ChatML), as the converter stores it. */
const HERMES_DEFAULT =
  "{{bos_token}}{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** Mistral 7B Instruct v0.3's template as early conversions carry it (no tools, no system role). */
const MISTRAL_PRE_TOOLS =
  "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}";

function gguf(name: string, entries: GgufEntry[]): GgufEntry[] {
  return [
    ['general.architecture', 'llama'],
    ['general.name', name],
    ['tokenizer.ggml.model', 'gpt2'],
    ...entries,
    ['tokenizer.ggml.tokens', ['a', 'Ġb']],
  ];
}

const converterHermes = gguf('Hermes 3 Llama 3.1 8B', [
  ['tokenizer.chat_template', HERMES_DEFAULT],
  ['tokenizer.chat_template.tool_use', template('NousResearch-Hermes-3-Llama-3.1-8B-tool_use')],
]);

/** Renders a template as llama.cpp hands it variables: the messages' call arguments as objects. */
function render(source: string, vars: Record<string, unknown>): string {
  return new Template(source).render({ bos_token: '', eos_token: '', add_generation_prompt: true, ...vars });
}

/** The messages with their calls' arguments as objects, as llama.cpp hands them to a template. */
function objectArguments(messages: unknown[]): unknown[] {
  return (messages as object[]).map((m) => {
    const calls = (m as { tool_calls?: Array<{ function: { arguments: string } }> }).tool_calls;
    return calls
      ? {
          ...m,
          tool_calls: calls.map((c) => ({
            ...c,
            function: { ...c.function, arguments: JSON.parse(c.function.arguments) },
          })),
        }
      : m;
  });
}

describe('a Hermes GGUF as the converter writes it (item 2)', () => {
  it('loads llama.cpp with a template that writes the tools and past calls when the request has tools', async () => {
    const { engine, fakes } = fakeWllamaEngine({
      models: [{ id: 'hermes', files: [new Blob([ggufBytes(converterHermes)])] }],
    });
    const req = generateRequest({ model: 'hermes', messages: loop, tools: [weather], maxOutputTokens: 1 });
    await runEngine(engine, req);
    const fake = fakes[0] as FakeWllama;
    const loaded = fake.loadedWith?.chat_template;
    expect(typeof loaded).toBe('string');
    const params = fake.calls[0]?.params as {
      messages: unknown[];
      chat_template_kwargs?: { tools?: unknown };
    };
    expect(params.chat_template_kwargs?.tools).toBeDefined();
    const prompt = render(loaded as string, {
      messages: objectArguments(params.messages),
      ...params.chat_template_kwargs,
    });
    expect(prompt).toContain('Here are the available tools: <tools> {"type": "function"');
    expect(prompt).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}');
    expect(prompt).toContain('<|im_start|>tool\n<tool_response>\n{"temp": 21}');
  });

  it('renders the tools, the past call and its result under `none` too (issue 44, item 3), and a call written stays text', async () => {
    const written = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>';
    const { engine, fakes } = fakeWllamaEngine({
      models: [{ id: 'hermes', files: [new Blob([ggufBytes(converterHermes)])] }],
      tokens: [written],
    });
    const req = generateRequest({ model: 'hermes', messages: loop, tools: [weather], toolChoice: 'none' });
    const chunks = await runEngine(engine, req);
    expect(chunks.filter((c) => c.type === 'tool_call')).toEqual([]);
    expect(chunks.flatMap((c) => (c.type === 'text' ? [c.delta] : [])).join('')).toBe(written);
    const fake = fakes[0] as FakeWllama;
    const params = fake.calls[0]?.params as {
      messages: unknown[];
      chat_template_kwargs?: Record<string, unknown>;
    };
    const prompt = render(fake.loadedWith?.chat_template as string, {
      messages: objectArguments(params.messages),
      ...params.chat_template_kwargs,
    });
    expect(prompt).toContain('Here are the available tools: <tools> {"type": "function"');
    expect(prompt).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}');
    expect(prompt).toContain('<|im_start|>tool\n<tool_response>\n{"temp": 21}');
    // Not ChatML's empty assistant turn and bare result.
    expect(prompt).not.toContain('<|im_start|>assistant\n<|im_end|>');
  });

  it('renders the default template (plain ChatML) for a request without tools, as llama.cpp does', () => {
    const facts = ggufFacts(parseGgufHeader(ggufBytes(converterHermes)), 'hermes');
    expect(facts.family.id).toBe('hermes');
    const prompt = render(facts.chatTemplate as string, {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(prompt).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('leaves a GGUF with one template to it', () => {
    const facts = ggufFacts(
      parseGgufHeader(
        ggufBytes(
          gguf('x', [['tokenizer.chat_template', template('NousResearch-Hermes-3-Llama-3.1-8B-tool_use')]]),
        ),
      ),
      'x',
    );
    expect(facts.family.id).toBe('hermes');
    expect(facts.chatTemplate).toBeNull();
  });
});

describe('a Mistral v0.3 GGUF whose template predates tools (item 2)', () => {
  const facts = ggufFacts(
    parseGgufHeader(
      ggufBytes(gguf('Mistral-7B-Instruct-v0.3', [['tokenizer.chat_template', MISTRAL_PRE_TOOLS]])),
    ),
    'mistral',
  );

  it('writes the tools and the calls as text, and results as a user turn, since the template reads neither', () => {
    expect(facts.family.id).toBe('mistral');
    const { messages, kwargs } = templateInputs(loop, {
      family: facts.family,
      system: [],
      tools: [weather],
      modelId: 'mistral',
      anyLastTurn: true,
    });
    expect(kwargs).toBeNull();
    expect(messages.some((m) => m.role === 'tool' || 'tool_calls' in m)).toBe(false);
    const text = messages.map((m) => m.content).join('\n');
    expect(text).toContain('[AVAILABLE_TOOLS]');
    expect(text).toContain('[TOOL_CALLS]');
    expect(text).toContain('[TOOL_RESULTS]');
    // The template's role alternation holds: user, assistant, user.
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it("still hands mistralai's v3 template the tools", () => {
    const v3 = ggufFacts(
      parseGgufHeader(
        ggufBytes(gguf('m', [['tokenizer.chat_template', template('mistralai-Mistral-7B-Instruct-v0.3')]])),
      ),
      'm',
    );
    const { kwargs } = templateInputs(loop, {
      family: v3.family,
      system: [],
      tools: [weather],
      modelId: 'm',
      anyLastTurn: true,
    });
    expect(kwargs?.tools).toBeDefined();
  });
});

describe("Meta's Llama 3.1 date on llama.cpp (item 6)", () => {
  const kwargsOf = (name: string) => {
    const facts = ggufFacts(
      parseGgufHeader(ggufBytes(gguf('m', [['tokenizer.chat_template', template(name)]]))),
      'm',
    );
    return templateInputs([{ role: 'user', content: 'Hi' }], {
      family: facts.family,
      system: [],
      tools: [],
      modelId: 'm',
    }).kwargs;
  };

  it("passes the template's literal default date, which llama.cpp would replace with today's", () => {
    expect(kwargsOf('meta-llama-Llama-3.1-8B-Instruct')).toEqual({ date_string: '26 Jul 2024' });
  });

  it("leaves Llama 3.2's, which dates itself today as published", () => {
    expect(kwargsOf('meta-llama-Llama-3.2-3B-Instruct')).toBeNull();
  });
});
