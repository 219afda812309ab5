/**
 * Debian's Chromium through playwright-core, launched as the e2e harness launches it (the flags in
 * tests/chromium.json; never `playwright install`). One browser context: one storage partition for
 * all of the session's tabs, as a user's profile has.
 *
 * @example
 * const browser = await launchChromiumSession();
 * const tab = await browser.newTab();
 */
import type { Page } from 'playwright-core';
import { launchChromium } from '../../e2e/harness';
import { type BrowserSession, bounded, DEFAULT_EVAL_MS, type Tab } from './types';

export async function launchChromiumSession(): Promise<BrowserSession> {
  const browser = await bounded(launchChromium(), 60_000, 'launching Chromium');
  const context = await browser.newContext();
  return {
    version: `Chromium ${browser.version()}`,
    async newTab() {
      return playwrightTab(await context.newPage());
    },
    async close() {
      await browser.close().catch(() => {});
    },
  };
}

/** The drivers' own typings of a page function recurse on the argument's type; ours is plain JSON. */
type Loose = (arg: unknown) => unknown;

function playwrightTab(page: Page): Tab {
  const log: string[] = [];
  page.on('console', (msg) => log.push(`${msg.type()}: ${msg.text()}`));
  page.on('pageerror', (err) => log.push(`pageerror: ${err.message}`));
  return {
    log,
    async goto(url) {
      await page.goto(url, { timeout: 60_000 });
    },
    async reload() {
      await page.reload({ timeout: 60_000 });
    },
    evaluate(fn, arg, timeoutMs = DEFAULT_EVAL_MS) {
      return bounded(
        page.evaluate(fn as Loose, arg as unknown),
        timeoutMs,
        'a page script (Chromium)',
      ) as never;
    },
    async close() {
      await page.close();
    },
  };
}
