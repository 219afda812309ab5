/**
 * Liveness and start-up races between the page, the service worker and the engine worker (issue 27,
 * section 5), in Chromium, with an engine worker that can be made to spin (tests/e2e/pages/
 * spin-worker.ts: the real worker plus a test-only hook):
 * - a worker busy with a long synchronous step, shorter than its tab's stuck bound, is not dropped:
 *   the request waits for it, is answered once, and the SDK never retries it (so it is not
 *   generated twice);
 * - a worker stuck for good is terminated and restarted by its tab: the next request is served, and
 *   the response it left `in_progress` ends `failed` (start-up recovery in the new worker);
 * - `GET /v1/models` made at the earliest moment the page is controlled answers 200, not the 503
 *   ("The engine port was replaced") that 7 runs in 8 got before.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp, waitForReady } from './harness';
import {
  callJson,
  createWhileBusy,
  fetchModelsWhenControlled,
  pollStatus,
  postUntilServed,
  spinForever,
} from './liveness.page';

/** The tab's bound on a silent worker in the restart test (the default is 15 s). */
const STUCK_MS = 3_000;
/** A hang guard for the page's polls, not a time budget: a loaded machine may take long. */
const HANG_MS = 90_000;
const livenessPage = (options: object) =>
  `/tests/e2e/pages/liveness.html#${encodeURIComponent(JSON.stringify(options))}`;

let app: AppSession & { pageErrors: string[]; consoleLines: string[] };
/** A second origin state (own service worker, store and leader) with the default stuck bound. */
let busyContext: BrowserContext;
let busyPage: Page;
const busyErrors: string[] = [];
const busyConsole: string[] = [];

beforeAll(async () => {
  app = await openApp({ path: livenessPage({ stuckWorkerMs: STUCK_MS }), testPages: true });
  busyContext = await app.browser.newContext({ baseURL: app.baseUrl });
  busyPage = await busyContext.newPage();
  busyPage.on('pageerror', (err) => busyErrors.push(err.message));
  busyPage.on('console', (msg) => busyConsole.push(`${msg.type()}: ${msg.text()}`));
  await busyPage.goto(livenessPage({}));
  await waitForReady(busyPage);
}, 60_000);
afterAll(() => app?.close());

const restarts = (lines: string[]) => lines.filter((l) => l.includes('restarting it'));

describe('a busy engine worker', () => {
  it('answers a request made during a 4 s synchronous step once, with no 503 and no retry', async () => {
    const busy = await busyPage.evaluate(createWhileBusy, { busyMs: 4_000, input: 'busy hello' });
    expect(busy.attempts).toEqual([200]);
    expect(busy.text).toBe('You said: busy hello');
    // It really waited behind the step (more than the service worker's 2 s ping; a load only makes
    // this longer), and nothing else ended the wait: no restart, no retry (attempts above).
    expect(busy.ms).toBeGreaterThan(3_000);
    expect(restarts(busyConsole)).toEqual([]);
    expect(busyPage.workers()).toHaveLength(1);
  });
});

describe('a stuck engine worker', () => {
  it('is restarted by its tab: the next request is served and the stuck response ends failed', async () => {
    const created = await app.page.evaluate(callJson, {
      method: 'POST',
      path: '/v1/responses',
      body: { model: 'scripted', input: '!delay 50 !words 400', background: true },
    });
    expect(created.status).toBe(200);
    const id = String(created.body.id);
    expect((await app.page.evaluate(pollStatus, { id, until: ['in_progress'], ms: HANG_MS })).status).toBe(
      'in_progress',
    );

    await app.page.evaluate(spinForever);
    const next = await app.page.evaluate(postUntilServed, {
      body: { model: 'scripted', input: 'after the restart' },
      ms: HANG_MS,
    });
    expect(next.body?.output_text ?? JSON.stringify(next.body?.output)).toContain(
      'You said: after the restart',
    );
    // Served after one restart by the tab (its bound, not another), never a hang: anything before
    // is a retryable 503.
    for (const answer of next.others) expect(answer).toMatch(/^503 true /);
    expect(restarts(app.consoleLines)).toHaveLength(1);

    const after = await app.page.evaluate(pollStatus, {
      id,
      until: ['failed', 'completed', 'cancelled', 'incomplete'],
      ms: HANG_MS,
    });
    expect(after.status).toBe('failed');
    expect(after.error).toMatchObject({
      code: 'server_error',
      message: expect.stringMatching(/stopped answering and was restarted/),
    });
    // One engine worker: the stuck one was terminated, not left spinning beside the new one.
    await expect.poll(() => app.page.workers().length).toBe(1);
    const again = await app.page.evaluate(callJson, {
      method: 'POST',
      path: '/v1/responses',
      body: { model: 'scripted', input: 'still fine' },
    });
    expect(again.status).toBe(200);
  });
});

describe('start-up', () => {
  it('answers GET /v1/models made the moment the page is controlled with 200, in 5 fresh starts', async () => {
    const answers: string[] = [];
    for (let run = 0; run < 5; run++) {
      const context = await app.browser.newContext({ baseURL: app.baseUrl });
      try {
        await context.addInitScript(fetchModelsWhenControlled);
        const page = await context.newPage();
        await page.goto('/');
        answers.push(
          await page.evaluate(() => (window as unknown as { __earlyModels: Promise<string> }).__earlyModels),
        );
      } finally {
        await context.close();
      }
    }
    expect(answers).toEqual(['200', '200', '200', '200', '200']);
  });
});

describe('the pages', () => {
  it('left no errors', () => {
    expect(app.pageErrors).toEqual([]);
    expect(busyErrors).toEqual([]);
  });
});
