/**
 * The OpenAI Agents SDK against the core: an agent on the Responses API with a function tool, run
 * to its final output. The SDK brings its own `openai` client; it gets our core as its fetch.
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
  // The SDK pins its own `openai` major; the client only needs to speak HTTP through our fetch.
  setDefaultOpenAIClient(client as unknown as Parameters<typeof setDefaultOpenAIClient>[0]);
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
