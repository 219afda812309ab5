/**
 * Issue 28 (wllama counting): a token count must render exactly the prompt a generation renders. On
 * wllama the count is a one-token llama.cpp run of the template inputs; it used to hand llama.cpp
 * every tool, no JSON instruction and no `chat_template_kwargs` beyond the tools, so with effort
 * `none` on Qwen3 (the template's `enable_thinking: false` writes an empty think block), with a JSON
 * format or with `tool_choice: none` it counted another prompt than the one generated. Checked at the
 * engine's boundary: the messages and template variables of the counting run equal the generation's.
 * Also: the cheap bound (answered without a run) covers the calls and the tool list that the
 * template now writes from `tool_calls` and its `tools` variable.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { promptShape } from '../../../src/engine/types';
import { byteBound } from '../../../src/engine/wllama/limits';
import { templateInputs } from '../../../src/engine/wllama/template-inputs';
import { generateRequest } from '../../helpers/generate-request';
import { ggufBytes } from '../../helpers/tiny-gguf';
import { fakeWllamaEngine, runEngine } from '../../helpers/wllama-engine-rig';
import type { FakeWllama } from '../../helpers/wllama-fakes';

/** Enough of Qwen3's template for the engine to know the family (its fingerprint). */
const QWEN3_TEMPLATE = '{{ "<|im_start|>" }}{# <tool_call> <think> reasoning_content #}';

const weather: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

function qwenEngine() {
  const gguf = new Blob([
    ggufBytes([
      ['general.architecture', 'qwen3'],
      ['tokenizer.ggml.model', 'gpt2'],
      ['tokenizer.chat_template', QWEN3_TEMPLATE],
      ['tokenizer.ggml.tokens', ['a', 'Ġb']],
    ]),
  ]);
  return fakeWllamaEngine({ models: [{ id: 'Qwen3-test', files: [gguf] }] });
}

const cases: Array<[string, Partial<GenerateRequest>]> = [
  ['effort none (enable_thinking: false)', { reasoningEffort: 'none', tools: [weather] }],
  ['a JSON format (the JSON instruction)', { format: { type: 'json_object' } }],
  ['tool_choice none (no tools)', { tools: [weather], toolChoice: 'none' }],
  ['a named tool', { tools: [weather, { ...weather, name: 'other' }], toolChoice: { name: 'get_weather' } }],
];

describe('wllama counts the prompt a generation renders', () => {
  it.each(cases)('%s', async (_name, over) => {
    const { engine, fakes } = qwenEngine();
    const req = generateRequest({
      model: 'Qwen3-test',
      messages: [{ role: 'user', content: 'Weather in Paris? Answer in JSON.' }],
      maxOutputTokens: 1,
      ...over,
    });
    await runEngine(engine, req);
    const fake = fakes[0] as FakeWllama;
    await engine.countTokens(req.model, req.messages, req.tools, { exact: true, shape: promptShape(req) });
    expect(fake.calls).toHaveLength(2);
    const [generated, counted] = fake.calls.map((c) => c.params);
    expect(counted?.messages).toEqual(generated?.messages);
    expect(counted?.chat_template_kwargs).toEqual(generated?.chat_template_kwargs);
  });

  it('effort none reaches the counting run as enable_thinking: false', async () => {
    const { engine, fakes } = qwenEngine();
    await engine.load('Qwen3-test');
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    const shape = {
      toolChoice: 'auto' as const,
      format: { type: 'text' as const },
      reasoningEffort: 'none' as const,
    };
    await engine.countTokens('Qwen3-test', messages, [], { exact: true, shape });
    expect(fakes[0]?.calls[0]?.params.chat_template_kwargs).toEqual({ enable_thinking: false });
  });

  it('the bound without a run covers the calls and the tool list the template writes', () => {
    const family = familyOf('Mistral-7B-Instruct-v0.3');
    const args = JSON.stringify({ city: 'x'.repeat(2000) });
    const tool = { ...weather, description: 'y'.repeat(3000) };
    const inputs = templateInputs(
      [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: args } }],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'get_weather', content: 'ok' },
      ],
      { family, system: [], tools: [tool], modelId: 'm' },
    );
    // Neither the calls nor the tools are in any message's content: the template writes them.
    expect(inputs.messages.map((m) => m.content).join('').length).toBeLessThan(100);
    expect(byteBound(inputs.messages, inputs.kwargs)).toBeGreaterThan(2000 + 3000);
  });
});
