/**
 * The Vercel AI SDK against the core through its OpenAI provider's Chat Completions model
 * (`openai.chat(id)`), which posts to `/chat/completions` (streaming with `include_usage`).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, Output, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { BASE, makeRig } from '../helpers/server';

/** The provider, and the paths it called. */
function provider() {
  const { server } = makeRig();
  const paths: string[] = [];
  const openai = createOpenAI({
    baseURL: BASE,
    apiKey: 'intab-test',
    fetch: (input, init) => {
      const request = new Request(input, init);
      paths.push(new URL(request.url).pathname);
      return server.fetch(request);
    },
  });
  return { openai, paths };
}

const weather = tool({
  description: 'Weather for a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  }),
  execute: async ({ city }) => `sunny in ${city}`,
});

describe('Vercel AI SDK (openai.chat)', () => {
  it('generates text with usage', async () => {
    const { openai, paths } = provider();
    const { text, usage, finishReason } = await generateText({
      model: openai.chat('scripted'),
      system: 'Be brief.',
      prompt: 'hello chat model',
    });
    expect(paths).toEqual(['/v1/chat/completions']);
    expect(text).toBe('You said: hello chat model');
    expect(finishReason).toBe('stop');
    expect(usage).toMatchObject({ inputTokens: 5, outputTokens: 5 });
  });

  it('streams text deltas and the usage chunk', async () => {
    const { openai } = provider();
    const result = streamText({ model: openai.chat('scripted'), prompt: '!words 5' });
    const parts: string[] = [];
    for await (const delta of result.textStream) parts.push(delta);
    expect(parts.join('')).toBe('w1 w2 w3 w4 w5');
    expect(await result.usage).toMatchObject({ inputTokens: 2, outputTokens: 5 });
  });

  it('runs a tool loop, streamed and not', async () => {
    const { openai } = provider();
    const run = {
      model: openai.chat('scripted'),
      prompt: 'weather please',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    };
    const generated = await generateText(run);
    expect(generated.steps.length).toBe(2);
    expect(generated.text).toBe('Tool get_weather returned: sunny in city');
    const streamed = streamText(run);
    expect(await streamed.text).toBe('Tool get_weather returned: sunny in city');
  });

  it('answers structured output through json_schema', async () => {
    const { openai } = provider();
    const { output } = await generateText({
      model: openai.chat('scripted'),
      prompt: 'a city',
      output: Output.object({
        schema: jsonSchema<{ name: string; population: number }>({
          type: 'object',
          properties: { name: { type: 'string' }, population: { type: 'integer' } },
          required: ['name', 'population'],
          additionalProperties: false,
        }),
      }),
    });
    expect(output).toEqual({ name: 'name', population: 1 });
  });
});
