/**
 * examples/sdk-app: the README's OpenAI Agents SDK and Vercel AI SDK snippets, in a Vite app, against
 * intab in the tab: an agent that calls a tool, and a streamed AI SDK answer.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import chromiumConfig from '../chromium.json';
import { runExamplePage } from './example-page';
import { installExample, runScript } from './packed-example';
import { type ServedExample, serveVite } from './servers';

let dir: string;
let browser: Browser;
let app: ServedExample | undefined;

beforeAll(async () => {
  dir = installExample('sdk-app');
  runScript(dir, 'build');
  browser = await chromium.launch(chromiumConfig);
});

afterAll(async () => {
  await app?.stop();
  await browser?.close();
});

describe('examples/sdk-app (OpenAI Agents SDK, Vercel AI SDK)', () => {
  it('typechecks', () => {
    runScript(dir, 'typecheck');
  });

  it('runs an agent through a tool call, and streams an AI SDK answer', async () => {
    app = await serveVite(dir, 'preview');
    const run = await runExamplePage(browser, `${app.baseUrl}/`);
    expect(run.outputs).toEqual({
      // The scripted model calls the tool with its schema's own instance ({ city: 'city' }).
      agent: 'Tool get_weather returned: rainy in city',
      'ai-sdk': 'You said: hello from the AI SDK',
    });
    expect(run.errors).toEqual([]);
    await run.context.close();
  });
});
