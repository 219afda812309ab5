import { startIntab } from 'intab';
import OpenAI from 'openai';

// Registers intab's service worker, starts the engine worker and connects the two; `webSocket`
// serves this origin's /v1/responses WebSockets in the tab too.
const intab = startIntab({ webSocket: true });
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

// WebSocket mode: one `response.create` per message, the stream's events back, one per message.
const socket = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/v1/responses`);
socket.onopen = () =>
  socket.send(JSON.stringify({ type: 'response.create', model: 'scripted', input: 'hello over a socket' }));
let overSocket = '';
await new Promise<void>((resolve) => {
  socket.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === 'response.output_text.delta') {
      overSocket += event.delta;
      show('#socket', overSocket);
    }
    if (event.type === 'response.completed') resolve();
  };
});
socket.close();
document.body.dataset.done = 'true';

function show(selector: string, text: string): void {
  const output = document.querySelector(selector);
  if (output) output.textContent = text;
}
