/**
 * Issue 28 (wllama prose and Mistral's space) through real llama.cpp in Chromium: for the families
 * whose published template writes a turn's calls itself (mistralai's v0.3, NousResearch's Hermes 3
 * tool_use, Ministral 3, Meta's Llama 3.1), intab hands llama.cpp the calls as `tool_calls` and the tools as the
 * template's `tools`, so llama.cpp's rendering of a tool loop with prose in the calling turn, then
 * another user turn, is the published template's rendering of the conversation, compared as the
 * prompt llama.cpp read (the engine's `logPrompts` line) and its token count (calls as objects:
 * llama.cpp parses the arguments for templates that take objects).
 * Before: the calls went as text in the content, so mistralai's and Ministral's templates raised on
 * role alternation (llama.cpp crashed; mistralai's also wrote a space before `[TOOL_CALLS]`), and
 * Hermes' and Meta's kept the prose their templates drop. The tiny test GGUF has Llama 3's vocabulary, which counts the published text.
 */
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { mistralCallId } from '../../src/engine/tool-formats/mistral';
import { addWithTemplate, respond } from './wllama-formats.page';
import { expectPrompt, publishedTemplate, TINY_URL, useTinyApp } from './wllama-template-app';

const app = useTinyApp();

const CALL_ID = 'call_6f1c2ab93d0e44a7';
// NousResearch's template trims each parameter's description.
const parameters = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'The city.' },
    days: { type: 'integer', description: 'Days ahead.' },
  },
  required: ['city'],
};
/**
 * Arguments whose text, escaped as a string (`"{\"city\": …}"`), counts other tokens than the object
 * (the quoted city): a template handed the arguments as text instead of an object would show.
 */
const ARGS = { city: '"Paris"', days: 3 };
const INPUT = [
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: 'Let me check.' },
  { type: 'function_call', call_id: CALL_ID, name: 'get_weather', arguments: JSON.stringify(ARGS) },
  { type: 'function_call_output', call_id: CALL_ID, output: '{"temp": 21}' },
  { role: 'assistant', content: 'It is 21 degrees.' },
  { role: 'user', content: 'And in Rome?' },
];

/** The same conversation as a Hugging Face client hands the template. */
function publishedMessages(id: string): unknown[] {
  return [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: 'Let me check.',
      tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: ARGS } }],
    },
    { role: 'tool', tool_call_id: id, content: '{"temp": 21}' },
    { role: 'assistant', content: 'It is 21 degrees.' },
    { role: 'user', content: 'And in Rome?' },
  ];
}

const cases = [
  {
    id: 'tiny-mistral-calls',
    file: 'mistralai-Mistral-7B-Instruct-v0.3.jinja',
    vars: { messages: publishedMessages(mistralCallId(CALL_ID)) },
    marker: '[/INST][TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "\\"Paris\\"", "days": 3}',
  },
  {
    id: 'tiny-hermes3-calls',
    file: 'NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja',
    vars: { messages: publishedMessages(CALL_ID) },
    marker:
      '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "\\"Paris\\"", "days": 3}}',
  },
  {
    id: 'tiny-ministral-calls',
    file: 'mistralai-Ministral-3-14B-Reasoning-2512.jinja',
    vars: { messages: publishedMessages(CALL_ID) },
    // Ministral keeps the prose, with the calls right after it.
    marker: 'Let me check.[TOOL_CALLS]get_weather[ARGS]{"city": "\\"Paris\\"", "days": 3}',
    prose: true,
  },
  {
    id: 'tiny31-calls',
    file: 'meta-llama-Llama-3.1-8B-Instruct.jinja',
    vars: { messages: publishedMessages(CALL_ID), tools_in_user_message: false },
    marker:
      '<|end_header_id|>\n\n{"name": "get_weather", "parameters": {"city": "\\"Paris\\"", "days": 3}}<|eot_id|>',
  },
];

describe('calls through the GGUF template that writes them', () => {
  it.each(cases)(
    '$file: llama.cpp renders a tool loop with prose, then a user turn, as the published template does',
    async ({ id, file, vars, marker, prose }) => {
      const template = publishedTemplate(file);
      await app().page.evaluate(addWithTemplate, { id, url: TINY_URL, template });
      const r = await app().page.evaluate(respond, {
        model: id,
        instructions: 'Be brief.',
        input: INPUT,
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            description: 'Current weather',
            parameters,
            strict: false,
          },
        ],
        max_output_tokens: 16,
        temperature: 0,
      });
      expect(r.error).toBeNull();
      const tools = [
        { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters } },
      ];
      const published = new Template(template).render({
        ...vars,
        tools,
        bos_token: '<|begin_of_text|>',
        eos_token: '<|eot_id|>',
        add_generation_prompt: true,
      });
      expect(published).toContain(marker);
      if (!prose) expect(published).not.toContain('Let me check.');
      expectPrompt(app(), id, published, r.inputTokens);
    },
    300_000,
  );
});
