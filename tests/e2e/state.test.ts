/**
 * Issue 15, the state classes (10–15) in Chromium through the real service worker: a deleted
 * response stays deleted whatever mode it ran in; a full disk at the final write leaves the record
 * `failed`, never `in_progress`; a conversation deleted under a running response is a loud error; a
 * stream whose service worker was stopped stops generating; and any stored response replays, read
 * by the `openai` SDK, with events that match the Open Responses spec. The event log of a response
 * whose tab died is checked in leader.test.ts, where a tab really dies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse, validateStreamEvent } from '../helpers/spec';
import { type AppSession, openApp, stopServiceWorkers, waitForReady } from './harness';
import {
  create,
  deleteConversationMidRun,
  deleteWhileRunning,
  deleteWhileStreaming,
  recentStored,
  replay,
  storageUsage,
  streamThenHold,
  untilSettled,
} from './state.page';

/** Short enough for a test; the default (20 s) is for pages that render as they read. */
const STREAM_IDLE_MS = 1_500;
const options = { server: { streamIdleMs: STREAM_IDLE_MS } };
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
});
afterAll(() => app?.close());

/** 100 tokens at 20 ms: a run that would end 2 s after it starts. */
const SLOW = '!delay 20 !words 100';
const PAST_ITS_END = 2_500;
/** 1000 tokens at 20 ms: a run that cannot end by itself before its delete, however slow the machine. */
const LONG = '!delay 20 !words 1000';
/** A hang guard for the page's polls, not a time budget. */
const HANG_MS = 90_000;

describe('a deleted response stays deleted (class 10)', () => {
  it('a direct stream stops at once, ends with its terminal event, and nothing brings it back', async () => {
    // Stopped by the delete, not by the run's end: its terminal event says cancelled, after far fewer
    // deltas than the run's 1000 (counted, not timed). The terminal event is the run's last write,
    // so a wait after it is enough for "nothing brings it back".
    const r = await app.page.evaluate(deleteWhileStreaming, { input: LONG, waitMs: PAST_ITS_END });
    expect(r.deleted).toBe(200);
    expect(r.ended).toBe(true);
    expect(r.last).toEqual({ type: 'response.incomplete', status: 'cancelled' });
    expect(r.deltas).toBeGreaterThan(0);
    expect(r.deltas).toBeLessThan(1_000);
    expect(r.afterwards).toBe(404);
  });

  for (const background of [false, true]) {
    it(`a ${background ? 'background' : 'JSON'} run stops, and no later write recreates it`, async () => {
      const r = await app.page.evaluate(deleteWhileRunning, {
        input: SLOW,
        background,
        waitMs: PAST_ITS_END,
      });
      expect(r.deleted).toBe(200);
      expect(r.answer).toBe(200);
      if (!background) expect(r.answerStatus).toBe('cancelled');
      expect(r.afterwards).toEqual([404, 404]);
    });
  }
});

describe('failed writes are never left ambiguous (classes 12, 13)', () => {
  it('a conversation deleted while the model runs makes the JSON answer a 404, and the response failed', async () => {
    const r = await app.page.evaluate(deleteConversationMidRun, { input: '!delay 20 !words 20' });
    expect(r.answer).toBe(404);
    expect(String(r.error?.message)).toMatch(/conv_/);
    expect(r.stored.status).toBe('failed');
    expect(validateResponse(r.stored)).toEqual([]);
  });

  it('a full disk at the final write answers 507 and leaves the record failed, not in_progress', async () => {
    // Its first record is small, its final one (600,000 words of output, megabytes) is not: with
    // the origin's quota a megabyte above what is stored now, only the final write overflows it. A
    // fresh context, so that what Chromium counts as stored is what is stored. Three times: right
    // after such an overflow Chromium may still count the aborted write's bytes (see TxRunner), and
    // the small failed record must fit all the same.
    const context = await app.browser.newContext({ baseURL: app.baseUrl });
    try {
      const page = await context.newPage();
      await page.goto(path);
      await waitForReady(page);
      const usage = await page.evaluate(storageUsage);
      const cdp = await context.newCDPSession(page);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.baseUrl, quotaSize: usage + 1_000_000 });
      for (let i = 0; i < 3; i++) {
        const r = await page.evaluate(create, { model: 'scripted', input: '!words 600000' });
        expect(r.status).toBe(507);
        expect((r.body.error as { code: string }).code).toBe('storage_quota_exceeded');
      }
      const stored = await page.evaluate(recentStored, 10);
      expect(stored).toHaveLength(3);
      for (const response of stored) {
        expect(response.status).toBe('failed');
        expect((response.error as { code: string }).code).toBe('storage_quota_exceeded');
        expect(validateResponse(response)).toEqual([]);
      }
    } finally {
      await context.close();
    }
  });
});

describe('a stream nobody reads (class 14)', () => {
  it('stops generating once the service worker reading it is stopped, stored cancelled', async () => {
    // 4000 tokens at 25 ms would take 100 s, past the poll's hang guard: the run is cancelled by the
    // idle bound (STREAM_IDLE_MS), as its status says, not ended by itself (counted in words, not timed).
    const id = await app.page.evaluate(streamThenHold, '!delay 25 !words 4000');
    await stopServiceWorkers(app.page);
    const { body } = await app.page.evaluate(untilSettled, { id, ms: HANG_MS });
    expect(body.status).toBe('cancelled');
    const words = JSON.stringify(body.output).match(/\bw\d+\b/g) ?? [];
    expect(words.length).toBeLessThan(4000);
    expect(validateResponse(body)).toEqual([]);
  }, 180_000);
});

describe('replaying any stored response (class 15)', () => {
  it('replays a JSON answer: the SDK reads it to the stored response, and every event is valid', async () => {
    const created = await app.page.evaluate(create, {
      model: 'scripted',
      input: 'replay me',
      reasoning: { effort: 'low', summary: 'auto' },
    });
    expect(created.status).toBe(200);
    const r = await app.page.evaluate(replay, String(created.body.id));
    // The SDK adds its conveniences (output_text, output_parsed) to what it read.
    expect(r.final).toMatchObject(created.body);
    expect(r.final.output_text).toBe('You said: replay me');
    expect(r.events).toEqual(r.frames.map((f) => f.type));
    expect(r.frames.map((f) => f.sequence_number)).toEqual(r.frames.map((_, i) => i));
    expect(r.frames.at(-1)?.type).toBe('response.completed');
    for (const f of r.frames) expect(validateStreamEvent(f)).toEqual([]);
  });
});

describe('after all this', () => {
  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
