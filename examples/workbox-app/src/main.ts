import { startIntab } from 'intab';
import OpenAI from 'openai';

// The app's service worker (built by vite-plugin-pwa at /sw.js) carries intab's handler.
const intab = startIntab({ swUrl: '/sw.js' });
await intab.ready;

const client = new OpenAI({
  baseURL: `${location.origin}/v1`,
  apiKey: 'local',
  dangerouslyAllowBrowser: true,
});

const response = await client.responses.create({ model: 'scripted', input: 'hello from a workbox app' });
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
