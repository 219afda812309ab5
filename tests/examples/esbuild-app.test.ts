/**
 * examples/esbuild-app: no Vite. esbuild builds the page, intab's engine worker (from
 * `intab/engine-worker`) and the app's own service worker (which calls `installIntab(self)`); the
 * result is plain static files.
 */
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import chromiumConfig from '../chromium.json';
import { firstPageError, listsWebLlmModels, runExamplePage } from './example-page';
import { installExample, runScript } from './packed-example';
import { type ServedExample, serveStatic } from './servers';

let dir: string;
let browser: Browser;
const servers: ServedExample[] = [];

beforeAll(async () => {
  dir = installExample('esbuild-app');
  runScript(dir, 'build');
  browser = await chromium.launch(chromiumConfig);
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await browser?.close();
});

async function serve(withhold: string[] = []): Promise<string> {
  const app = await serveStatic(join(dir, 'dist'), { withhold });
  servers.push(app);
  return app.baseUrl;
}

describe('examples/esbuild-app (esbuild, the app’s own service worker)', () => {
  it('typechecks the page and the service worker with skipLibCheck: false', () => {
    runScript(dir, 'typecheck');
  });

  it('answers and streams through its own service worker, from static files', async () => {
    const base = await serve();
    const run = await runExamplePage(browser, `${base}/`);
    expect(run.outputs).toEqual({
      answer: 'You said: hello from an esbuild app',
      streamed: 'You said: streamed hello',
    });
    expect(run.controller).toBe(`${base}/sw.js`);
    // web-llm is a lazy chunk of the worker's; its model list arrives only if the chunk loads.
    expect(listsWebLlmModels(run.models)).toBe(true);
    // The worker's lazy web-xgrammar chunk loads and refuses a schema it cannot compile.
    expect(run.schemaRefusal).toBe('invalid_json_schema');
    expect(run.errors).toEqual([]);
    await run.context.close();
  });

  it('without its engine worker script, fails with one error naming the URL and the HTTP status', async () => {
    const base = await serve(['/engine-worker.js']);
    const errors = appErrors(await firstPageError(browser, `${base}/`));
    expect(errors.length).toBeGreaterThan(0);
    // The app's top-level await rethrows what intab logs: the same error, never a bare `Event`.
    for (const error of errors) {
      expect(error).toContain(`intab's engine worker (${base}/engine-worker.js) failed to start: HTTP 404`);
    }
  });

  it('without its service worker script, fails with one error naming the URL and the cause', async () => {
    const base = await serve(['/sw.js']);
    const errors = appErrors(await firstPageError(browser, `${base}/`));
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error).toMatch(
        new RegExp(`intab's service worker \\(${base}/sw\\.js\\) could not be registered: .*\\(404\\)`),
      );
    }
  });
});

/** The errors intab and the app report, without the browser's own log lines ("Failed to load resource: …"). */
function appErrors(errors: string[]): string[] {
  return errors.filter((e) => e.includes('intab'));
}
