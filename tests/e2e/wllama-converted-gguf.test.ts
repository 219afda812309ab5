/**
 * Issue 33, item 2, through real llama.cpp in Chromium: a GGUF laid out as llama.cpp's converter
 * writes a NousResearch Hermes repository (`default`, plain ChatML, as `tokenizer.chat_template`;
 * NousResearch's `tool_use` template as `tokenizer.chat_template.tool_use`). A request with tools
 * must read the tool list and the past call as the `tool_use` template writes them (before, llama.cpp
 * rendered `default` and the model saw no tools); one without tools, the plain ChatML prompt llama.cpp
 * renders for a client. Compared as the prompt llama.cpp read (the engine's `logPrompts` line) and its
 * token count (the tiny GGUF has Llama 3's vocabulary, which counts the published text).
 */
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { weatherLoopInput, weatherLoopMessages } from './weather-loop';
import { addWithTemplate, respond } from './wllama-formats.page';
import { expectPrompt, publishedTemplate, TINY_URL, useTinyApp } from './wllama-template-app';

const app = useTinyApp();

const CHATML =
  "{{bos_token}}{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
const TOOL_USE = publishedTemplate('NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja');
const CALL_ID = 'call_6f1c2ab93d0e44a7';
const parameters = {
  type: 'object',
  properties: { city: { type: 'string', description: 'The city.' } },
  required: ['city'],
};
const render = (source: string, vars: Record<string, unknown>) =>
  new Template(source).render({
    bos_token: '<|begin_of_text|>',
    eos_token: '<|eot_id|>',
    add_generation_prompt: true,
    ...vars,
  });

describe('a Hermes GGUF as the converter writes it, on real llama.cpp', () => {
  it('renders the tool_use template for a request with tools, the default one without', async () => {
    await app().page.evaluate(addWithTemplate, {
      id: 'hermes-converted',
      url: TINY_URL,
      template: CHATML,
      toolUse: TOOL_USE,
    });
    const withTools = await app().page.evaluate(respond, {
      model: 'hermes-converted',
      input: weatherLoopInput(CALL_ID),
      tools: [
        { type: 'function', name: 'get_weather', description: 'Current weather', parameters, strict: false },
      ],
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(withTools.error).toBeNull();
    const toolPrompt = render(TOOL_USE, {
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters } },
      ],
      messages: weatherLoopMessages(CALL_ID),
    });
    expect(toolPrompt).toContain('<tools> {"type": "function"');
    expectPrompt(app(), 'hermes-converted', toolPrompt, withTools.inputTokens);

    const plain = await app().page.evaluate(respond, {
      model: 'hermes-converted',
      input: 'Hi',
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(plain.error).toBeNull();
    const plainPrompt = render(CHATML, { messages: [{ role: 'user', content: 'Hi' }] });
    expectPrompt(app(), 'hermes-converted', plainPrompt, plain.inputTokens);
  }, 300_000);
});
