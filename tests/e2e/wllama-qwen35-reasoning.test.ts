/**
 * Issue 28 defect 2 through real llama.cpp in Chromium: with Qwen3.5's published template in the tiny
 * test GGUF, a tool loop's reasoning item reaches the template as the assistant turn's
 * `reasoning_content`, and llama.cpp's rendering writes it in the turn's think block as the published
 * template does: its prompt counts exactly the published rendering's tokens (an empty think block,
 * as before, would not).
 */
import { Template } from '@huggingface/jinja';
import llama3Tokenizer from 'llama3-tokenizer-js';
import { describe, expect, it } from 'vitest';
import { addWithTemplate, respond } from './wllama-formats.page';
import { publishedTemplate, TINY_URL, useTinyApp } from './wllama-template-app';

const app = useTinyApp();

describe("a tool loop's reasoning through the GGUF's own Qwen3.5 template", () => {
  it('llama.cpp writes the reasoning in the loop turn as the published template does, token for token', async () => {
    const template = publishedTemplate('Qwen3.5-4B.jinja');
    await app().page.evaluate(addWithTemplate, { id: 'tiny-qwen35', url: TINY_URL, template });
    const reasoning = 'The user wants Paris weather; I should call get_weather.';
    const r = await app().page.evaluate(respond, {
      model: 'tiny-qwen35',
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: reasoning }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temp": 21}' },
      ],
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(r.error).toBeNull();
    const published = new Template(template).render({
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: '',
          reasoning_content: reasoning,
          tool_calls: [
            { id: 'x', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
          ],
        },
        { role: 'tool', tool_call_id: 'x', content: '{"temp": 21}' },
      ],
      add_generation_prompt: true,
    });
    expect(published).toContain(`<think>\n${reasoning}\n</think>\n\n<tool_call>`);
    // Qwen's template writes no BOS; llama.cpp adds the one the test GGUF's Llama 3 vocabulary asks for.
    expect(r.inputTokens).toBe(llama3Tokenizer.encode(published, { bos: true, eos: false }).length);
  }, 300_000);
});
