/**
 * Debian's Firefox ESR through puppeteer-core over WebDriver BiDi (Firefox's own remote protocol;
 * puppeteer-core never downloads a browser). Headless, in the temporary profile puppeteer makes:
 * every tab shares it, as a user's profile.
 *
 * @example
 * const browser = await launchFirefox();
 * const tab = await browser.newTab();
 */
import puppeteer, { type Page } from 'puppeteer-core';
import { type BrowserSession, bounded, DEFAULT_EVAL_MS, type Tab } from './types';

export const FIREFOX = '/usr/bin/firefox-esr';

export async function launchFirefox(): Promise<BrowserSession> {
  const browser = await bounded(
    puppeteer.launch({
      browser: 'firefox',
      protocol: 'webDriverBiDi',
      executablePath: FIREFOX,
      headless: true,
      // A page script's own bound is the matrix's; the protocol's is only a hang guard above it.
      protocolTimeout: 300_000,
      extraPrefsFirefox: {
        // Nothing that phones home during tests (as Chromium's flags).
        'app.update.enabled': false,
        'browser.safebrowsing.malware.enabled': false,
        'browser.safebrowsing.phishing.enabled': false,
        'datareporting.policy.dataSubmissionEnabled': false,
      },
    }),
    60_000,
    'launching Firefox',
  );
  return {
    version: `Firefox ${(await browser.version()).replace(/^firefox\//i, '')}`,
    async newTab() {
      return puppeteerTab(await browser.newPage());
    },
    async close() {
      await browser.close().catch(() => {});
    },
  };
}

/** The drivers' own typings of a page function recurse on the argument's type; ours is plain JSON. */
type Loose = (arg: unknown) => unknown;

function puppeteerTab(page: Page): Tab {
  const log: string[] = [];
  page.on('console', (msg) => log.push(`${msg.type()}: ${msg.text()}`));
  page.on('pageerror', (err) => log.push(`pageerror: ${err instanceof Error ? err.message : err}`));
  return {
    log,
    async goto(url) {
      await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    },
    async reload() {
      await page.reload({ waitUntil: 'load', timeout: 60_000 });
    },
    evaluate(fn, arg, timeoutMs = DEFAULT_EVAL_MS) {
      return bounded(
        page.evaluate(fn as Loose, arg as unknown),
        timeoutMs,
        'a page script (Firefox)',
      ) as never;
    },
    async close() {
      await page.close();
    },
  };
}
