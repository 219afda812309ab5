import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

// The Agents SDK runs on an `openai` client pointed at the tab, over the Responses API.
setDefaultOpenAIClient(
  new OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'local', dangerouslyAllowBrowser: true }),
);
setOpenAIAPI('responses');
// Its traces would be sent to OpenAI's servers.
setTracingDisabled(true);

const getWeather = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `rainy in ${city}`,
});

const agent = new Agent({
  name: 'assistant',
  instructions: 'Answer briefly; use your tools.',
  model: 'scripted',
  tools: [getWeather],
});

/** Runs the agent (its tool calls included) and streams its answer into `onText`. */
export async function askAgent(input: string, onText: (text: string) => void): Promise<string> {
  const result = await run(agent, input, { stream: true });
  let text = '';
  for await (const delta of result.toTextStream()) {
    text += delta;
    onText(text);
  }
  await result.completed;
  return String(result.finalOutput);
}
