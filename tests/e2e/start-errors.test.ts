/**
 * A page whose engine worker or service worker cannot start gets one clear error from `ready`: the
 * script's URL and why, never a bare `Event` or a timeout (tests/e2e/pages/options.html starts
 * intab with the options in its hash).
 */
import type { Browser } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startPreview } from './harness';

let baseUrl: string;
let server: PreviewServer;
let browser: Browser;

beforeAll(async () => {
  ({ baseUrl, server } = await startPreview({ testPages: true }));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** What `startIntab(options).ready` settles with in a fresh page, and how long it took. */
async function readyWith(options: object): Promise<{ outcome: string; ms: number }> {
  const context = await browser.newContext({ baseURL: baseUrl });
  try {
    const page = await context.newPage();
    await page.goto(`/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`);
    return await page.evaluate(async () => {
      const start = performance.now();
      const outcome = await window.intab.ready.then(
        () => 'ready',
        (err: Error) => err.message,
      );
      return { outcome, ms: performance.now() - start };
    });
  } finally {
    await context.close();
  }
}

describe('start-up failures', () => {
  it('an engine worker script that is not there rejects ready with its URL and the cause, at once', async () => {
    const { outcome } = await readyWith({ workerUrl: '/no-such-engine-worker.js' });
    expect(outcome).toMatch(
      new RegExp(
        `^intab's engine worker \\(${baseUrl}/no-such-engine-worker\\.js\\) failed to start: (HTTP 404|it is served as 'text/html')`,
      ),
    );
    // Not the 30 s readiness deadline: that one says the engine did not become ready, not why it
    // failed to start, so the message itself tells which bound ended the wait (no time margin).
  });

  it('a service worker script that is not there rejects ready with its URL and the browser’s reason', async () => {
    const { outcome } = await readyWith({ swUrl: '/no-such-sw.js' });
    expect(outcome).toMatch(
      new RegExp(`^intab's service worker \\(${baseUrl}/no-such-sw\\.js\\) could not be registered: .+`),
    );
  });

  it('the same page starts when nothing is wrong', async () => {
    expect((await readyWith({})).outcome).toBe('ready');
  });
});
