/**
 * What a service worker fetches at install, watched from outside: a fresh context opens the
 * worker's own script URL as a page (so none of the app's code runs), registers the worker there
 * and waits until it is active, i.e. its install (the precache) is over. Every request of the
 * context (the page's and, in Chromium, the service worker's own) is recorded from the start.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { lazyAssetKind } from '../../src/common/lazy-assets';
import { SHELL_MARKS } from '../../sw/shell-generations';

export interface InstallWatch {
  /** Same-origin paths requested while the worker installed, the registration's page aside. */
  requested: string[];
  /** Same-origin paths held in Cache Storage once the worker is active, the shell's marks aside. */
  cached: string[];
  /**
   * The shell's own bookkeeping entries (its generation, the pages of a previous build), which are
   * not files of the build and were never fetched.
   */
  marks: string[];
}

/**
 * Registers `${baseUrl}${swPath}` in a fresh context and reports what it fetched and cached.
 *
 * @example
 * const { requested } = await watchInstall(browser, baseUrl);
 * expect(requested.filter(isLazyPath)).toEqual([]);
 */
export async function watchInstall(
  browser: Browser,
  baseUrl: string,
  swPath = '/sw.js',
): Promise<InstallWatch> {
  const context = await browser.newContext();
  const requested: string[] = [];
  context.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin === baseUrl) requested.push(url.pathname);
  });
  try {
    const page = await context.newPage();
    await page.goto(`${baseUrl}${swPath}`);
    const cached = await page.evaluate(async (sw) => {
      await navigator.serviceWorker.register(sw);
      // `ready` comes while the worker is still activating; its activate step writes the shell's
      // marks, so the listing waits until that step is over.
      const worker = (await navigator.serviceWorker.ready).active;
      if (worker && worker.state !== 'activated')
        await new Promise<void>((done) => {
          const check = () => worker.state === 'activated' && done();
          worker.addEventListener('statechange', check);
          check();
        });
      const paths: string[] = [];
      for (const name of await caches.keys())
        for (const req of await (await caches.open(name)).keys()) paths.push(new URL(req.url).pathname);
      return paths;
    }, swPath);
    // The page itself and the worker's script are the registration, not the install.
    const isMark = (p: string) => p.startsWith(`/${SHELL_MARKS}`);
    return {
      requested: requested.filter((p) => p !== swPath),
      cached: cached.filter((p) => !isMark(p)),
      marks: cached.filter(isMark),
    };
  } finally {
    await context.close();
  }
}

/** Whether a path is one of intab's lazy assets (never fetched at install). */
export const isLazyPath = (path: string): boolean => lazyAssetKind(path) !== null;

/** The bytes of the built files behind `paths` (each counted once), as a static host sends them. */
export function bytesOf(distDir: string, paths: readonly string[]): number {
  let total = 0;
  for (const p of new Set(paths)) total += statSync(join(distDir, p === '/' ? 'index.html' : p)).size;
  return total;
}

/**
 * Installs the service worker of the app served at `baseUrl` (built into `distDir`) in a fresh
 * context and expects the shell among what it fetched, and none of intab's lazy assets fetched or
 * cached; logs, under `label`, how many files and bytes the install took.
 */
export async function expectLeanInstall(
  browser: Browser,
  baseUrl: string,
  distDir: string,
  label: string,
): Promise<void> {
  const { requested, cached } = await watchInstall(browser, baseUrl);
  expect(requested).toContain('/index.html');
  expect(requested.filter(isLazyPath)).toEqual([]);
  expect(cached.filter(isLazyPath)).toEqual([]);
  console.info(`${label} install: ${requested.length} files, ${bytesOf(distDir, requested)} bytes`);
}
