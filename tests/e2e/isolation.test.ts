/**
 * Issue 35, threads on any host: the built app served by a plain static server that sends no
 * COOP/COEP (as GitHub Pages and most CDNs) is not cross-origin isolated on its first load; intab's
 * service worker then serves its pages and files with the headers, so from the first reload on the
 * page is `crossOriginIsolated` and llama.cpp runs with more than one thread.
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

describe('cross-origin isolation from the service worker, on a host that sends no headers', () => {
  it('is not isolated on the first load (the control: the host sends no COOP/COEP)', async () => {
    const res = await page.goto(`${site.baseUrl}${path}`);
    expect(res?.headers()['cross-origin-embedder-policy']).toBeUndefined();
    await waitForReady(page);
    expect((await isolation()).isolated).toBe(false);
  });

  it('is isolated from the first reload, and llama.cpp then runs on 2 threads', async () => {
    await page.reload();
    await waitForReady(page);
    expect(await isolation()).toEqual({ isolated: true, sab: true });
    const tiny = await page.evaluate(async () => {
      const r = await fetch('/v1/responses', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny', input: 'hello', max_output_tokens: 16 }),
      });
      const models = (await (await fetch('/v1/models')).json()) as {
        data: { id: string; threads?: number }[];
      };
      return {
        status: r.status,
        error: r.ok ? null : await r.text(),
        threads: models.data.find((m) => m.id === 'tiny')?.threads,
      };
    });
    expect(tiny).toEqual({ status: 200, error: null, threads: 2 });
  }, 180_000);

  it('left no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
