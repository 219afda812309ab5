/**
 * examples/workbox-app: a Vite app with its own service worker, built by vite-plugin-pwa with a
 * workbox precache, which imports `intab/sw`. It answers offline too.
 */

import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import chromiumConfig from '../chromium.json';
import { expectLeanInstall } from '../helpers/sw-install';
import { runExamplePage } from './example-page';
import { installExample, runScript } from './packed-example';
import { type ServedExample, serveVite } from './servers';

let dir: string;
let browser: Browser;
let app: ServedExample | undefined;

beforeAll(async () => {
  dir = installExample('workbox-app');
  runScript(dir, 'build');
  browser = await chromium.launch(chromiumConfig);
});

afterAll(async () => {
  await app?.stop();
  await browser?.close();
});

describe('examples/workbox-app (its own workbox service worker imports intab/sw)', () => {
  it('typechecks, its service worker included, with skipLibCheck: false', () => {
    runScript(dir, 'typecheck');
  });

  it('answers and streams through the app’s service worker, and again after an offline reload', async () => {
    app = await serveVite(dir, 'preview');
    const run = await runExamplePage(browser, `${app.baseUrl}/`);
    const expected = { answer: 'You said: hello from a workbox app', streamed: 'You said: streamed hello' };
    expect(run.outputs).toEqual(expected);
    expect(run.controller).toBe(`${app.baseUrl}/sw.js`);
    expect(run.schemaRefusal).toBe('invalid_json_schema');
    expect(run.errors).toEqual([]);
    // The app's precache serves the shell offline; intab answers /v1 in the tab.
    await run.context.setOffline(true);
    await run.page.reload();
    await run.page.waitForSelector('body[data-done="true"]', { timeout: 30_000 });
    expect(await run.page.textContent('#answer')).toBe(expected.answer);
    expect(await run.page.textContent('#streamed')).toBe(expected.streamed);
    await run.context.close();
  });

  it('fetches the shell and intab’s runtime at install, and none of intab’s lazy assets', async () => {
    if (!app) throw new Error('the preview test runs first');
    await expectLeanInstall(browser, app.baseUrl, join(dir, 'dist'), 'workbox-app');
  });
});
