import { startIntab } from 'intab';
import { askAgent } from './agents';
import { askAiSdk } from './ai-sdk';

await startIntab().ready;

await askAgent('What is the weather in Paris?', (text) => show('#agent', text));
await askAiSdk('hello from the AI SDK', (text) => show('#ai-sdk', text));
document.body.dataset.done = 'true';

function show(selector: string, text: string): void {
  const output = document.querySelector(selector);
  if (output) output.textContent = text;
}
