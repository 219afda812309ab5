/**
 * examples/webpack-app: webpack 5 bundles the page and, following intab's
 * `new Worker(new URL('./engine-worker.js', import.meta.url))`, the engine worker with its lazy
 * web-llm chunk; the app's own service worker is a second entry. Served as static files.
 */
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import chromiumConfig from '../chromium.json';
import { listsWebLlmModels, runExamplePage } from './example-page';
import { installExample, runScript } from './packed-example';
import { type ServedExample, serveStatic } from './servers';

let dir: string;
let browser: Browser;
let app: ServedExample | undefined;

beforeAll(async () => {
  dir = installExample('webpack-app');
  runScript(dir, 'build');
  browser = await chromium.launch(chromiumConfig);
});

afterAll(async () => {
  await app?.stop();
  await browser?.close();
});

describe('examples/webpack-app (webpack 5, the app’s own service worker)', () => {
  it('answers and streams through its own service worker, from static files', async () => {
    app = await serveStatic(join(dir, 'dist'));
    const run = await runExamplePage(browser, `${app.baseUrl}/`);
    expect(run.outputs).toEqual({
      answer: 'You said: hello from a webpack app',
      streamed: 'You said: streamed hello',
    });
    expect(run.controller).toBe(`${app.baseUrl}/sw.js`);
    // The worker's lazy web-llm chunk loaded (webpack's chunk loading works inside the worker).
    expect(listsWebLlmModels(run.models)).toBe(true);
    // The worker's lazy web-xgrammar chunk loads and refuses a schema it cannot compile.
    expect(run.schemaRefusal).toBe('invalid_json_schema');
    expect(run.errors).toEqual([]);
    await run.context.close();
  });
});
