/**
 * examples/sdk-app: the README's OpenAI Agents SDK and Vercel AI SDK snippets, in a Vite app, against
 * intab in the tab: an agent that calls a tool, and a streamed AI SDK answer.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import chromiumConfig from '../chromium.json';
import { type RunningMcpServer, startMcpServer } from '../helpers/mcp-server';
import { runExamplePage } from './example-page';
import { installExample, runScript } from './packed-example';
import { type ServedExample, serveVite } from './servers';

let dir: string;
let browser: Browser;
let app: ServedExample | undefined;
let mcp: RunningMcpServer | undefined;

beforeAll(async () => {
  dir = installExample('sdk-app');
  runScript(dir, 'build');
  browser = await chromium.launch(chromiumConfig);
});

afterAll(async () => {
  await app?.stop();
  await mcp?.close();
  await browser?.close();
});

describe('examples/sdk-app (OpenAI Agents SDK, Vercel AI SDK)', () => {
  it('typechecks', () => {
    runScript(dir, 'typecheck');
  });

  it('runs an agent through a tool call, streams an AI SDK answer, and runs the hosted tools', async () => {
    app = await serveVite(dir, 'preview');
    mcp = await startMcpServer();
    const run = await runExamplePage(browser, `${app.baseUrl}/?mcp=${encodeURIComponent(mcp.url)}`, 180_000);
    expect(run.outputs).toEqual({
      // The scripted model calls the tool with its schema's own instance ({ city: 'city' }).
      agent: 'Tool get_weather returned: rainy in city',
      'ai-sdk': 'You said: hello from the AI SDK',
      // The agent's V4A diff, applied by its editor; the version is the regex's simplest input.
      patch: '## 0.0.0\n- Works offline.',
      // The hosted tools' own outputs, quoted by scripted without intab's model-facing frame.
      'file-search': 'Tool file_search returned: solar.txt\nSolar panels turn sunlight into power.',
      python: 'Tool python returned: 42',
      mcp: 'Tool echo returned: echo: hi',
    });
    // The MCP call ran once, after the page approved it.
    expect(mcp.counts.call).toBe(1);
    expect(run.errors).toEqual([]);
    await run.context.close();
  });
});
