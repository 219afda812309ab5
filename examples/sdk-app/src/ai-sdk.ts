import { createOpenAI } from '@ai-sdk/openai';
import { streamText } from 'ai';

// The AI SDK's OpenAI provider, pointed at the tab; `openai.responses(id)` uses the Responses API.
const openai = createOpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'local' });

/** Streams the answer to `prompt` into `onText`. */
export async function askAiSdk(prompt: string, onText: (text: string) => void): Promise<string> {
  const result = streamText({ model: openai.responses('scripted'), prompt });
  let text = '';
  for await (const delta of result.textStream) {
    text += delta;
    onText(text);
  }
  return text;
}
