import { startIntab } from 'intab';
import OpenAI from 'openai';

// The app's service worker (dist/sw.js) carries intab's handler; build.mjs builds the engine worker
// from intab/engine-worker at /engine-worker.js.
const intab = startIntab({ swUrl: '/sw.js', workerUrl: '/engine-worker.js' });
await intab.ready;

const client = new OpenAI({
  baseURL: `${location.origin}/v1`,
  apiKey: 'local',
  dangerouslyAllowBrowser: true,
});

const response = await client.responses.create({ model: 'scripted', input: 'hello from an esbuild app' });
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
