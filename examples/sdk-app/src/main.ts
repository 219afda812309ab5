import { startIntab } from 'intab';
import OpenAI from 'openai';
import { askAgent } from './agents';
import { askAiSdk } from './ai-sdk';
import { hostedToolsAgent, runWithApproval } from './hosted-tools';
import { releaseNotes } from './patch-agent';

await startIntab().ready;

await askAgent('What is the weather in Paris?', (text) => show('#agent', text));
await askAiSdk('hello from the AI SDK', (text) => show('#ai-sdk', text));
// An agent edits a file with apply_patch; a custom tool's regex holds the version it is given.
show('#patch', await releaseNotes('!apply_patch create_file CHANGELOG.md\n+## VERSION\n+- Works offline.'));

// Hosted tools: a file in a vector store (indexed in the tab, with no model download), Python, and
// the MCP server the page names in `?mcp=` (the example's test starts one).
const client = new OpenAI({
  baseURL: `${location.origin}/v1`,
  apiKey: 'local',
  dangerouslyAllowBrowser: true,
});
const store = await client.vectorStores.create({ name: 'notes' });
const notes = new File(['Solar panels turn sunlight into power.'], 'solar.txt', { type: 'text/plain' });
await client.vectorStores.fileBatches.uploadAndPoll(store.id, { files: [notes] }, { pollIntervalMs: 50 });
const mcpUrl = new URLSearchParams(location.search).get('mcp');
if (mcpUrl) {
  const agent = hostedToolsAgent(store.id, mcpUrl);
  show('#file-search', await runWithApproval(agent, '!file_search solar panels'));
  show('#python', await runWithApproval(agent, '!python print(6 * 7)'));
  show('#mcp', await runWithApproval(agent, '!mcp tools echo {"text":"hi"}'));
}
document.body.dataset.done = 'true';

function show(selector: string, text: string): void {
  const output = document.querySelector(selector);
  if (output) output.textContent = text;
}
