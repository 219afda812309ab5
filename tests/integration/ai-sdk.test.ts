/**
 * The Vercel AI SDK against the core, through its OpenAI provider's Responses API model
 * (`openai.responses(id)`), as a web app would use it with `baseURL: location.origin + '/v1'`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { BASE, makeRig } from '../helpers/server';

function provider() {
  const { server } = makeRig();
  return createOpenAI({
    baseURL: BASE,
    apiKey: 'intab-test',
    fetch: (input, init) => server.fetch(new Request(input, init)),
  });
}

describe('Vercel AI SDK (openai.responses)', () => {
  it('generates text', async () => {
    const openai = provider();
    const { text, usage } = await generateText({
      model: openai.responses('scripted'),
      prompt: 'hello ai sdk',
    });
    expect(text).toBe('You said: hello ai sdk');
    expect(usage.outputTokens).toBe(5);
  });

  it('streams text deltas', async () => {
    const openai = provider();
    const result = streamText({ model: openai.responses('scripted'), prompt: '!words 6' });
    const parts: string[] = [];
    for await (const delta of result.textStream) parts.push(delta);
    expect(parts.join('')).toBe('w1 w2 w3 w4 w5 w6');
    expect(parts.length).toBe(6);
  });

  it('passes the request options @ai-sdk/openai 4 forwards, and reads the echo back', async () => {
    const { server } = makeRig();
    const answers: unknown[] = [];
    const openai = createOpenAI({
      baseURL: BASE,
      apiKey: 'intab-test',
      fetch: async (input, init) => {
        const res = await server.fetch(new Request(input, init));
        answers.push(await res.clone().json());
        return res;
      },
    });
    const result = await generateText({
      model: openai.responses('scripted'),
      prompt: 'options please',
      providerOptions: {
        openai: {
          // The provider sends reasoning settings only to models it takes for reasoning models.
          forceReasoning: true,
          reasoningEffort: 'low',
          reasoningSummary: 'auto',
          reasoningMode: 'standard',
          reasoningContext: 'auto',
          promptCacheKey: 'k1',
          promptCacheOptions: { mode: 'explicit', ttl: '12h' },
          safetyIdentifier: 'user-1',
          contextManagement: [{ type: 'compaction', compactThreshold: 2000 }],
          maxToolCalls: 3,
          textVerbosity: 'low',
          metadata: { app: 'intab' },
        },
      },
    });
    expect(result.text).toBe('You said: options please');
    expect(result.reasoningText).toBe('Thinking about: options please');
    expect(result.providerMetadata?.openai).toMatchObject({ reasoningContext: 'current_turn' });
    expect(answers).toMatchObject([
      {
        prompt_cache_options: { mode: 'explicit', ttl: '12h' },
        reasoning: { effort: 'low', summary: 'auto', mode: 'standard', context: 'current_turn' },
        safety_identifier: 'user-1',
        max_tool_calls: 3,
        text: { verbosity: 'low' },
      },
    ]);
  });

  it('runs a tool loop: call, local execute, final answer', async () => {
    const openai = provider();
    const calls: unknown[] = [];
    const { text, steps } = await generateText({
      model: openai.responses('scripted'),
      prompt: 'weather please',
      tools: {
        get_weather: tool({
          description: 'Weather for a city',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          }),
          execute: async (input) => {
            calls.push(input);
            return 'sunny';
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(calls).toEqual([{ city: 'city' }]);
    expect(steps.length).toBe(2);
    expect(text).toBe('Tool get_weather returned: sunny');
  });
});
