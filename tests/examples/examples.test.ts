/**
 * The examples, as users would get them: intab from the packed tarball, each app built with its
 * own Vite, and driven in Chromium through its real service worker.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, launchChromium } from '../e2e/harness';
import { buildExample, packIntab, runScript, type ServedExample, serveExample } from './packed-example';

let tarball: string;
let browser: Browser;
const servers: ServedExample[] = [];

const built = new Map<string, string>();

/** The example built from the tarball, once per run. */
function example(name: string): string {
  const dir = built.get(name) ?? buildExample(name, tarball);
  built.set(name, dir);
  return dir;
}

async function start(name: string): Promise<ServedExample> {
  const served = await serveExample(example(name), await freePort());
  servers.push(served);
  return served;
}

beforeAll(async () => {
  tarball = packIntab();
  browser = await launchChromium();
});

afterAll(async () => {
  for (const s of servers) s.stop();
  await browser?.close();
});

describe('examples/vite-app (intab/vite builds the service worker)', () => {
  it('typechecks against the package’s declarations', () => {
    runScript(example('vite-app'), 'typecheck');
  });

  it('runs its own Node tests against intab/msw', () => {
    const out = runScript(example('vite-app'), 'test');
    expect(out).toMatch(/# pass 2/);
    expect(out).toMatch(/# fail 0/);
  });

  it('answers and streams through the openai SDK', async () => {
    const app = await start('vite-app');
    const context = await browser.newContext({ baseURL: app.baseUrl });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('/');
    await page.waitForSelector('body[data-done="true"]', { timeout: 30_000 });
    expect(await page.textContent('#answer')).toBe('You said: hello from a Vite app');
    expect(await page.textContent('#streamed')).toBe('You said: streamed hello');
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(
      `${app.baseUrl}/sw.js`,
    );
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('examples/workbox-app (its own workbox service worker imports intab/sw)', () => {
  it('typechecks, its service worker included', () => {
    runScript(example('workbox-app'), 'typecheck');
  });

  it('answers through the app’s service worker, and again after an offline reload', async () => {
    const app = await start('workbox-app');
    const context = await browser.newContext({ baseURL: app.baseUrl });
    const page = await context.newPage();
    await page.goto('/');
    await page.waitForSelector('body[data-done="true"]', { timeout: 30_000 });
    expect(await page.textContent('#answer')).toBe('You said: hello from a workbox app');
    // The app's precache serves the shell offline; intab answers /v1 in the tab.
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('body[data-done="true"]', { timeout: 30_000 });
    expect(await page.textContent('#answer')).toBe('You said: hello from a workbox app');
    await context.close();
  });
});
