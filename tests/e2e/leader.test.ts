/**
 * One engine per origin (DESIGN §5): two tabs share one engine worker, elected with Web Locks; the
 * service worker routes both tabs' requests to it; when the leading tab closes, the other tab takes
 * over, and a response that was running in the closed tab ends `failed` with a clear error, its
 * event log ending with `response.failed` (issue 15, class 11). No answer during the takeover is a
 * 200 whose body breaks off (class 16): `res.json()` in the polls would throw on one.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp, waitForReady } from './harness';
import { callJson, pollThroughFailover, replayTypes } from './leader.page';

let app: AppSession & { pageErrors: string[] };
/** The first tab (opened by the harness) leads; `follower` is opened after it. */
let leader: Page;
let follower: Page;

beforeAll(async () => {
  app = await openApp();
  leader = app.page;
  follower = await app.context.newPage();
  await follower.goto('/');
  await waitForReady(follower);
});
afterAll(() => app?.close());

/** Engine workers (dedicated workers) each tab runs; the service worker is not among them. */
const engineWorkers = (page: Page): number => (page.isClosed() ? 0 : page.workers().length);

const slowBackground = { model: 'scripted', input: '!delay 50 !words 200', background: true };

describe('one engine per origin', () => {
  it('runs exactly one engine worker for two ready tabs, in the first tab', async () => {
    await expect.poll(() => engineWorkers(leader)).toBe(1);
    expect(leader.workers()[0]?.url()).toContain('engine-worker');
    expect(engineWorkers(follower)).toBe(0);
  });

  it("answers the follower's requests, and its GPU status, from the leader's worker", async () => {
    const created = await follower.evaluate(callJson, {
      method: 'POST',
      path: '/v1/responses',
      body: { model: 'scripted', input: 'from the follower' },
    });
    expect(created.status).toBe(200);
    expect(JSON.stringify(created.body.output)).toContain('You said: from the follower');
    // The demo fills this line from intab.gpuStatus(), which a follower relays to the leader.
    const gpu = follower.getByTestId('gpu-status');
    await expect.poll(() => gpu.textContent()).toMatch(/^WebGPU: (available|unavailable) /);
  });

  it('cancels from the follower a background response the leader started (one live run table)', async () => {
    const created = await leader.evaluate(callJson, {
      method: 'POST',
      path: '/v1/responses',
      body: slowBackground,
    });
    expect(created.status).toBe(200);
    const cancelled = await follower.evaluate(callJson, {
      method: 'POST',
      path: `/v1/responses/${created.body.id}/cancel`,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(engineWorkers(leader) + engineWorkers(follower)).toBe(1);
  });

  it('fails over to the follower when the leader closes, failing the run it left behind', async () => {
    const created = await leader.evaluate(callJson, {
      method: 'POST',
      path: '/v1/responses',
      body: slowBackground,
    });
    expect(created.status).toBe(200);
    const id = String(created.body.id);
    const running = await follower.evaluate(pollThroughFailover, { id, until: ['in_progress'], ms: 60_000 });
    expect(running.body.status).toBe('in_progress');

    await leader.close();
    const after = await follower.evaluate(pollThroughFailover, {
      id,
      until: ['failed', 'completed', 'cancelled', 'incomplete'],
      ms: 15_000,
    });
    expect(after.body.status).toBe('failed');
    expect(after.body.error).toEqual({
      code: 'server_error',
      message: expect.stringMatching(/its tab closed/),
    });
    // Any answer but 200 during the takeover is the service worker's bounded 503, never a hang.
    for (const answer of after.non200) expect(answer).toMatch(/^503 /);
    // Its event log, cut off when the tab closed, ends with the failure recovery recorded.
    const replayed = await follower.evaluate(replayTypes, id);
    expect(replayed.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(replayed.at(-1)).toBe('response.failed');
    expect(replayed.filter((t) => t === 'response.failed')).toHaveLength(1);

    await expect.poll(() => engineWorkers(follower)).toBe(1);
    const next = await follower.evaluate(callJson, {
      method: 'POST',
      path: '/v1/responses',
      body: { model: 'scripted', input: 'new leader' },
    });
    expect(next.status).toBe(200);
    expect(JSON.stringify(next.body.output)).toContain('You said: new leader');
  });

  it('left no errors in the pages', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
