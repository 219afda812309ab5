/**
 * The OpenAI Agents SDK against the core: an agent on the Responses API with a function tool, run
 * to its final output. The SDK runs on the same `openai` client as the app; it gets our core as its fetch.
 */
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BASE, makeRig } from '../helpers/server';

function useRig() {
  const { server } = makeRig();
  const client = new OpenAI({
    apiKey: 'intab-test',
    baseURL: BASE,
    maxRetries: 0,
    fetch: (input: string | URL | Request, init?: RequestInit) => server.fetch(new Request(input, init)),
  });
  // The SDK shares our `openai` (7.x, deduped), so the client is its own type: no cast.
  setDefaultOpenAIClient(client);
  setOpenAIAPI('responses');
  setTracingDisabled(true);
}

describe('OpenAI Agents SDK', () => {
  it('runs an agent to its final output', async () => {
    useRig();
    const agent = new Agent({ name: 'echo', instructions: 'Repeat the user.', model: 'scripted' });
    const result = await run(agent, 'hello agents');
    expect(result.finalOutput).toBe('You said: hello agents');
  });

  it('sends its model settings as create fields intab accepts', async () => {
    useRig();
    const agent = new Agent({
      name: 'settings',
      instructions: 'Repeat the user.',
      model: 'scripted',
      modelSettings: {
        reasoning: { effort: 'low', summary: 'auto', mode: 'standard', context: 'auto' },
        text: { verbosity: 'low' },
        promptCacheOptions: { mode: 'explicit', ttl: '30m' },
        contextManagement: [{ type: 'compaction', compactThreshold: 2000 }],
        truncation: 'auto',
        maxTokens: 64,
        store: true,
      },
    });
    const result = await run(agent, 'hello settings');
    expect(result.finalOutput).toBe('You said: hello settings');
    const response = result.rawResponses[0]?.providerData;
    expect(response).toMatchObject({
      reasoning: { effort: 'low', summary: 'auto', mode: 'standard', context: 'current_turn' },
      prompt_cache_options: { mode: 'explicit', ttl: '30m' },
      truncation: 'auto',
      max_output_tokens: 64,
    });
  });

  it('calls a function tool and answers with its result', async () => {
    useRig();
    const seen: unknown[] = [];
    const getWeather = tool({
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: z.object({ city: z.string() }),
      execute: async (input) => {
        seen.push(input);
        return 'rainy';
      },
    });
    const agent = new Agent({
      name: 'weather',
      instructions: 'Use tools.',
      model: 'scripted',
      tools: [getWeather],
    });
    const result = await run(agent, 'weather in Paris?');
    expect(seen).toEqual([{ city: 'city' }]);
    expect(result.finalOutput).toBe('Tool get_weather returned: rainy');
  });
});
