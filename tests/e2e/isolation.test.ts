/**
 * Issue 35, threads on any host: the built app served by a plain static server that sends no
 * COOP/COEP (as GitHub Pages and most CDNs) is not cross-origin isolated on its first load; intab's
 * service worker then serves its pages and files with the headers, so from the first reload on the
 * page is `crossOriginIsolated` and llama.cpp runs with more than one thread. Before that reload the
 * page has no SharedArrayBuffer, as WebKit never has: a GGUF then runs on the single-threaded SIMD
 * build (issue 42), and on the threaded one after it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedExample, serveStatic } from '../examples/servers';
import { buildWithTestPages, launchChromium, waitForReady } from './harness';

const options = {
  wllama: { models: [{ id: 'tiny', url: '/test-models/intab-tiny-random.gguf', device: 'cpu', threads: 2 }] },
};
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

const isolation = () =>
  page.evaluate(() => ({ isolated: crossOriginIsolated, sab: typeof SharedArrayBuffer === 'function' }));

/** One response from `tiny`, then which llama.cpp build and how many threads `/v1/models` says run it. */
function respond() {
  return page.evaluate(async () => {
    const r = await fetch('/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', input: 'hello', max_output_tokens: 16 }),
    });
    const body = r.ok ? ((await r.json()) as { usage: { output_tokens: number } }) : null;
    const models = (await (await fetch('/v1/models')).json()) as {
      data: { id: string; wasm?: string; threads?: number }[];
    };
    const tiny = models.data.find((m) => m.id === 'tiny');
    return {
      status: r.status,
      error: r.ok ? null : await r.text(),
      outputTokens: body?.usage.output_tokens ?? 0,
      wasm: tiny?.wasm,
      threads: tiny?.threads,
    };
  });
}

describe('cross-origin isolation from the service worker, on a host that sends no headers', () => {
  it('is not isolated on the first load (the control: the host sends no COOP/COEP)', async () => {
    const res = await page.goto(`${site.baseUrl}${path}`);
    expect(res?.headers()['cross-origin-embedder-policy']).toBeUndefined();
    await waitForReady(page);
    expect((await isolation()).isolated).toBe(false);
  });

  it('runs a GGUF on the single-threaded SIMD build, on 1 thread, while the page has no SharedArrayBuffer', async () => {
    // issue 42: the threaded build's glue needs SharedArrayBuffer (WebKit, Safari, any page without
    // COOP/COEP); `threads: 2` is asked, and the single-threaded build runs one whatever is asked.
    expect(await isolation()).toEqual({ isolated: false, sab: false });
    const ran = await respond();
    expect(ran).toMatchObject({ status: 200, error: null, wasm: 'simd-st', threads: 1 });
    // llama.cpp really generated on it (the random weights may end before the bound).
    expect(ran.outputTokens).toBeGreaterThan(0);
  }, 180_000);

  it('is isolated from the first reload, and llama.cpp then runs on 2 threads', async () => {
    await page.reload();
    await waitForReady(page);
    expect(await isolation()).toEqual({ isolated: true, sab: true });
    expect(await respond()).toMatchObject({ status: 200, error: null, wasm: 'simd', threads: 2 });
  }, 180_000);

  it('left no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
