/**
 * Issue 42, GGUF models without SharedArrayBuffer: a page that is not cross-origin isolated has no
 * `SharedArrayBuffer` (Chromium hides it, as WebKit does), so intab's threaded SIMD build cannot
 * start there. The engine detects that and runs the tiny GGUF on its single-threaded SIMD build
 * (`simd-st`: no pthreads, no shared memory) on 1 thread; once the page is isolated, the threaded
 * build runs it. The app is the built one, served by a plain static server that sends no COOP/COEP,
 * so the first load is not isolated and every reload is (the service worker adds the headers).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedExample, serveStatic } from '../examples/servers';
import { buildWithTestPages, launchChromium, waitForReady } from './harness';
import { TINY_URL } from './wllama-app';

// threads: 2 asks for two; the single-threaded build runs one whatever is asked.
const options = { wllama: { models: [{ id: 'tiny', url: TINY_URL, device: 'cpu', threads: 2 }] } };
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let site: ServedExample;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  site = await serveStatic(await buildWithTestPages());
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
}, 120_000);
afterAll(async () => {
  await browser?.close().catch(() => {});
  await site?.stop();
});

/** One response from `tiny`, then what `/v1/models` says runs it. */
function respond() {
  return page.evaluate(async () => {
    const r = await fetch('/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', input: 'hello', max_output_tokens: 16 }),
    });
    const body = r.ok ? ((await r.json()) as { status: string; usage: { output_tokens: number } }) : null;
    const models = (await (await fetch('/v1/models')).json()) as {
      data: { id: string; wasm?: string; threads?: number }[];
    };
    const tiny = models.data.find((m) => m.id === 'tiny');
    return {
      status: r.status,
      error: r.ok ? null : await r.text(),
      response: body && { status: body.status, outputTokens: body.usage.output_tokens },
      wasm: tiny?.wasm,
      threads: tiny?.threads,
    };
  });
}

const features = () =>
  page.evaluate(() => ({ isolated: crossOriginIsolated, sab: typeof SharedArrayBuffer === 'function' }));

describe('a GGUF model on a page without SharedArrayBuffer', () => {
  it('runs on the single-threaded SIMD build, on 1 thread, where the page is not isolated', async () => {
    await page.goto(`${site.baseUrl}${path}`);
    await waitForReady(page);
    // The control: this page really lacks what the threaded build needs.
    expect(await features()).toEqual({ isolated: false, sab: false });
    const ran = await respond();
    expect(ran).toMatchObject({ status: 200, error: null, wasm: 'simd-st', threads: 1 });
    // llama.cpp really generated on it (the random weights may end before the bound).
    expect(ran.response?.outputTokens).toBeGreaterThan(0);
  }, 180_000);

  it('runs on the threaded SIMD build once the page is isolated (the same app, reloaded)', async () => {
    await page.reload();
    await waitForReady(page);
    expect(await features()).toEqual({ isolated: true, sab: true });
    expect(await respond()).toMatchObject({ status: 200, error: null, wasm: 'simd', threads: 2 });
  }, 180_000);

  it('left no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
