/**
 * Issue 46: a new build reaches a returning visitor. The app is built twice (tests/helpers/app-builds.ts)
 * and served on one origin, the first build and then the second. A returning visitor's page hears
 * `intab.onUpdate` while the new build waits, its reloads keep serving the first build whole (no
 * page mixes two builds), and `intab.applyUpdate()` reloads it into the second; a page only the
 * second build has is then served from its shell, offline too, never as the first build's
 * `index.html`. With `startIntab({ autoUpdate: true })` an open page reloads into the second build by itself.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_META, buildDeploy, serveDeploy } from '../helpers/app-builds';
import { freePort, launchChromium, waitForReady } from './harness';

const ADDED = '/tests/e2e/pages/update-added.html';
const optionsPage = (options: object) =>
  `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let first: string;
let second: string;
let browser: Browser;
let server: PreviewServer | null = null;
let context: BrowserContext | null = null;

beforeAll(async () => {
  first = await buildDeploy('a');
  second = await buildDeploy('b', [ADDED.slice(1)]);
  browser = await launchChromium();
}, 120_000);
afterEach(async () => {
  await context?.close().catch(() => {});
  await server?.close();
  context = null;
  server = null;
});
afterAll(async () => {
  await browser?.close().catch(() => {});
});

/** The build that served the page now shown; null while it navigates. */
async function buildOf(page: Page): Promise<string | null> {
  return page
    .evaluate(
      (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? null,
      BUILD_META,
    )
    .catch(() => null);
}

/** Polls, across the page's own reloads, until it shows `name`'s build: at most 150 looks, 200 ms apart. */
async function untilBuild(page: Page, name: string): Promise<void> {
  for (let look = 0; look < 150; look++) {
    if ((await buildOf(page)) === name) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the page still shows build ${await buildOf(page)}, not ${name}`);
}

/** Opens `path` on the first build, then deploys the second on the same origin. */
async function returningVisitor(path: string): Promise<Page> {
  const port = await freePort();
  server = await serveDeploy(first, port);
  context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}` });
  const page = await context.newPage();
  await page.goto(path);
  await waitForReady(page);
  expect(await buildOf(page)).toBe('a');
  await server.close();
  server = await serveDeploy(second, port);
  return page;
}

describe('a new build, prompt (the default)', () => {
  it('waits, is announced by onUpdate, and is served after applyUpdate()', async () => {
    const page = await returningVisitor(optionsPage({}));
    // The reload's navigation makes the browser fetch the new sw.js; it installs and waits.
    await page.reload();
    await waitForReady(page);
    const update = await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no onUpdate within 20 s')), 20_000);
          window.intab.onUpdate((u) => {
            clearTimeout(timer);
            resolve(u);
          });
        }),
    );
    expect(update).toEqual({ waiting: true });
    // Reloads alone keep the first build, whole: the waiting build serves none of its files yet.
    await page.reload();
    await waitForReady(page);
    expect(await buildOf(page)).toBe('a');

    // The documented step: one call activates the new build and reloads the page into it.
    await page.evaluate(() => {
      void window.intab.applyUpdate();
    });
    await untilBuild(page, 'b');
    await waitForReady(page);

    // A page the first build never had is the second build's page, even offline.
    await page.goto(ADDED);
    expect(await page.locator('#added').count()).toBe(1);
    await context?.setOffline(true);
    await page.reload();
    expect(await page.locator('#added').count()).toBe(1);
    expect(await buildOf(page)).toBe('b');
    await page.goto('/');
    expect(await buildOf(page)).toBe('b');
    await context?.setOffline(false);
  }, 120_000);
});

describe('a new build, autoUpdate', () => {
  it('reloads a page that stays open into the new build once the browser finds it', async () => {
    const page = await returningVisitor(optionsPage({ autoUpdate: true }));
    // No navigation: the open tab only looks for a new build (a browser does so on its own too),
    // and reloads itself into it. The look may end with the page it ran in.
    await page.evaluate(() => window.intab.checkForUpdate()).catch(() => {});
    await untilBuild(page, 'b');
    await waitForReady(page);
    await page.goto(ADDED);
    expect(await page.locator('#added').count()).toBe(1);
  }, 120_000);
});
