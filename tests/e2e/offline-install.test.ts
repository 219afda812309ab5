/**
 * Issue 35: an app built with `intab()` alone (the demo is one) is offline by default, by one
 * precache policy (`src/common/lazy-assets.ts`). Its service worker's install fetches the shell and
 * intab's runtime and none of the lazy assets; a lazy asset, once a feature fetched it, is served
 * offline from intab's runtime cache. (The plain offline reload is in lifecycle.test.ts.)
 */
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHELL_MARKS } from '../../sw/shell-generations';
import { bytesOf, isLazyPath, watchInstall } from '../helpers/sw-install';
import { uploadToStore } from './file-search.page';
import { launchChromium, startPreview, waitForReady } from './harness';

const dist = resolve(import.meta.dirname, '../../dist');
let baseUrl: string;
let server: PreviewServer;
let browser: Browser;

beforeAll(async () => {
  ({ baseUrl, server } = await startPreview());
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close().catch(() => {});
  await server?.close();
});

describe('intab() alone: the install', () => {
  it('fetches the shell and the runtime, and no lazy asset', async () => {
    const { requested, cached, marks } = await watchInstall(browser, baseUrl);
    // The control: the watch sees the service worker's own fetches (the page fetched nothing).
    expect(requested).toContain('/index.html');
    expect(requested.some((p) => /^\/assets\/engine-worker-[^/]+\.js$/.test(p))).toBe(true);
    expect(requested.filter(isLazyPath)).toEqual([]);
    expect(cached.filter(isLazyPath)).toEqual([]);
    expect(new Set(cached)).toEqual(new Set(requested));
    // A first install numbers its shell and, with no previous build, marks no page.
    expect(marks).toEqual([`/${SHELL_MARKS}generation`]);
    console.info(`intab() install: ${requested.length} files, ${bytesOf(dist, requested)} bytes`);
  });
});

describe('intab() alone: a lazy asset after first use', () => {
  it('indexes a file offline once the o200k tables were fetched online', async () => {
    const context = await browser.newContext({ baseURL: baseUrl });
    try {
      const page = await context.newPage();
      await page.goto('/');
      await waitForReady(page);
      const online = await page.evaluate(uploadToStore, [{ name: 'a.txt', text: 'The sky is blue.' }]);
      expect(online.batchStatus).toBe('completed');
      await context.setOffline(true);
      await page.reload();
      await waitForReady(page);
      // A reload starts a new engine worker, which imports the o200k chunk again: from the cache.
      const offline = await page.evaluate(uploadToStore, [{ name: 'b.txt', text: 'The sea is green.' }]);
      expect(offline.batchStatus).toBe('completed');
      const cached = await page.evaluate(async () => {
        const keys = await (await caches.open('intab-assets')).keys();
        return keys.map((k) => new URL(k.url).pathname);
      });
      expect(cached.some((p) => /^\/assets\/o200k-[^/]+\.js$/.test(p))).toBe(true);
    } finally {
      await context.close();
    }
  });
});
