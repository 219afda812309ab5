/**
 * examples/vite-app: a Vite app with no service worker of its own; `intab/vite` builds the engine
 * worker and intab's service worker. Built and previewed, and run on the dev server; its own Node
 * tests run against `intab/msw`.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import chromiumConfig from '../chromium.json';
import { type ExampleRun, listsWebLlmModels, runExamplePage } from './example-page';
import { installExample, runScript } from './packed-example';
import { type ServedExample, serveVite } from './servers';

let dir: string;
let browser: Browser;
const servers: ServedExample[] = [];

beforeAll(async () => {
  dir = installExample('vite-app');
  browser = await chromium.launch(chromiumConfig);
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await browser?.close();
});

function expectAnswered(run: ExampleRun, baseUrl: string): void {
  expect(run.outputs).toEqual({
    answer: 'You said: hello from a Vite app',
    streamed: 'You said: streamed hello',
    socket: 'You said: hello over a socket',
  });
  expect(run.controller).toBe(`${baseUrl}/sw.js`);
  expect(listsWebLlmModels(run.models)).toBe(true);
  // The worker's lazy web-xgrammar chunk loads and refuses a schema it cannot compile.
  expect(run.schemaRefusal).toBe('invalid_json_schema');
  expect(run.errors).toEqual([]);
}

describe('examples/vite-app (intab/vite builds the service worker)', () => {
  it('typechecks against the package’s declarations with skipLibCheck: false', () => {
    runScript(dir, 'typecheck');
  });

  it('runs its own Node tests against intab/msw', () => {
    const out = runScript(dir, 'test');
    expect(out).toMatch(/# pass 2/);
    expect(out).toMatch(/# fail 0/);
  });

  it('answers and streams when built and previewed', async () => {
    runScript(dir, 'build');
    const app = await serveVite(dir, 'preview');
    servers.push(app);
    const run = await runExamplePage(browser, `${app.baseUrl}/`);
    expectAnswered(run, app.baseUrl);
    await run.context.close();
  });

  it('answers and streams on the dev server', async () => {
    const app = await serveVite(dir, 'dev');
    servers.push(app);
    const run = await runExamplePage(browser, `${app.baseUrl}/`, 120_000);
    expectAnswered(run, app.baseUrl);
    await run.context.close();
  });
});
