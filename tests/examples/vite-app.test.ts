/**
 * examples/vite-app: a Vite app with no service worker of its own; `intab/vite` builds the engine
 * worker and intab's service worker. Built and previewed, and run on the dev server; its own Node
 * tests run against `intab/msw`.
 */

import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import chromiumConfig from '../chromium.json';
import { expectLeanInstall } from '../helpers/sw-install';
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

  it('answers and streams when built and previewed, and again after an offline reload', async () => {
    runScript(dir, 'build');
    const app = await serveVite(dir, 'preview');
    servers.push(app);
    const run = await runExamplePage(browser, `${app.baseUrl}/`);
    expectAnswered(run, app.baseUrl);
    // intab() alone precached the shell: the page reloads offline and intab answers /v1 in the tab.
    await run.context.setOffline(true);
    await run.page.reload();
    await run.page.waitForSelector('body[data-done="true"]', { timeout: 30_000 });
    expect(await run.page.textContent('#answer')).toBe('You said: hello from a Vite app');
    expect(await run.page.textContent('#streamed')).toBe('You said: streamed hello');
    await run.context.close();
  });

  it('fetches the shell and intab’s runtime at install, and none of intab’s lazy assets', async () => {
    const app = servers[0];
    if (!app) throw new Error('the preview test runs first');
    await expectLeanInstall(browser, app.baseUrl, join(dir, 'dist'), 'vite-app');
  });

  it('answers and streams on the dev server', async () => {
    const app = await serveVite(dir, 'dev');
    servers.push(app);
    const run = await runExamplePage(browser, `${app.baseUrl}/`, 120_000);
    expectAnswered(run, app.baseUrl);
    await run.context.close();
  });
});
