import { startIntab } from 'intab';
import OpenAI from 'openai';

// Registers intab's service worker, starts the engine worker and connects the two.
const intab = startIntab();
await intab.ready;

const client = new OpenAI({
  baseURL: `${location.origin}/v1`,
  apiKey: 'local',
  dangerouslyAllowBrowser: true,
});

const response = await client.responses.create({ model: 'scripted', input: 'hello from a Vite app' });
show('#answer', response.output_text);

const stream = client.responses.stream({ model: 'scripted', input: 'streamed hello' });
let streamed = '';
stream.on('response.output_text.delta', (event) => {
  streamed += event.delta;
  show('#streamed', streamed);
});
await stream.finalResponse();
document.body.dataset.done = 'true';

function show(selector: string, text: string): void {
  const output = document.querySelector(selector);
  if (output) output.textContent = text;
}
