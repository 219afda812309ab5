/**
 * Issue 28 defect 4 (remainder) through real llama.cpp in Chromium: with Meta's published Llama 3.1
 * template in the tiny test GGUF, a request that offers a tool hands the template `tools` (through
 * `chat_template_kwargs`, with `tools_in_user_message: false`), so llama.cpp's own rendering writes
 * `Environment: ipython` and the function list once. The prompt llama.cpp read (the engine's
 * `logPrompts` line) is the published template's rendering of the conversation with those tools
 * (intab's own copy of the list beside the template's, or no `Environment: ipython`, would not be).
 * Issue 33: the date in it is the template's own, 26 Jul 2024, not llama.cpp's `date_string` (today's),
 * which a token count could not tell apart.
 */
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { addWithTemplate, respond } from './wllama-formats.page';
import { expectPrompt, promptOf, publishedTemplate, TINY_URL, useTinyApp } from './wllama-template-app';

const app = useTinyApp();

describe("tools through the GGUF's own Llama 3.1 template", () => {
  it('llama.cpp writes Environment: ipython and the tools as the published template does, token for token', async () => {
    const template = publishedTemplate('meta-llama-Llama-3.1-8B-Instruct.jinja');
    await app().page.evaluate(addWithTemplate, { id: 'tiny31-tools', url: TINY_URL, template });
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const r = await app().page.evaluate(respond, {
      model: 'tiny31-tools',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temp": 21}' },
      ],
      tools: [
        { type: 'function', name: 'get_weather', description: 'Current weather', parameters, strict: false },
      ],
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(r.error).toBeNull();
    const tools = [
      { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters } },
    ];
    const published = new Template(template).render({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'x', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
          ],
        },
        { role: 'tool', tool_call_id: 'x', content: '{"temp": 21}' },
      ],
      tools,
      tools_in_user_message: false,
      bos_token: '<|begin_of_text|>',
      add_generation_prompt: true,
    });
    expect(published).toContain('Environment: ipython\n');
    expectPrompt(app(), 'tiny31-tools', published, r.inputTokens);
  }, 300_000);

  it("llama.cpp reads the template's own date, 26 Jul 2024, not today's (its date_string)", async () => {
    const template = publishedTemplate('meta-llama-Llama-3.1-8B-Instruct.jinja');
    await app().page.evaluate(addWithTemplate, { id: 'tiny31-date', url: TINY_URL, template });
    const r = await app().page.evaluate(respond, {
      model: 'tiny31-date',
      input: 'Hi',
      max_output_tokens: 16,
    });
    expect(r.error).toBeNull();
    const prompt = promptOf(app(), 'tiny31-date');
    expect(prompt).toContain('Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n');
    // llama.cpp's own date_string is today's, as '%d %b %Y' ('27 Nov 2026'); a day either side for
    // a run across midnight or another time zone.
    for (const days of [-1, 0, 1]) {
      const day = new Date(Date.now() + days * 86_400_000);
      const [, date, month, year] = day.toUTCString().match(/^\w+, (\d+) (\w+) (\d+)/) ?? [];
      expect(prompt).not.toContain(`Today Date: ${date} ${month} ${year}`);
    }
  }, 300_000);
});
