/**
 * Stored state through the real service worker: background runs polled across reloads, resumed
 * streams, cancel, and conversations that survive a reload and a stopped service worker.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse, validateStreamEvent } from '../helpers/spec';
import { type AppSession, openApp, stopServiceWorkers, waitForReady } from './harness';
import { call, disconnectAndResume, outputText, pollStatus } from './stored-state.page';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

async function secondTab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto('/');
  await waitForReady(page);
  return page;
}

describe('stored state in Chromium', () => {
  it('polls a background response to completed from a tab that reloads meanwhile', async () => {
    // The engine runs in the leading (first) tab; a follower tab reloads and keeps polling through it.
    const watcher = await secondTab(app.context);
    const created = await app.page.evaluate(call, {
      method: 'POST',
      path: '/v1/responses',
      body: { model: 'scripted', input: '!delay 20 !words 40', background: true },
    });
    expect(created.status).toBe(200);
    expect(['queued', 'in_progress']).toContain(created.body.status);
    const id = String(created.body.id);
    const early = await watcher.evaluate(pollStatus, { id, until: ['in_progress'], ms: 60_000 });
    expect(early.status).toBe('in_progress');
    await watcher.reload();
    await waitForReady(watcher);
    const done = await watcher.evaluate(pollStatus, {
      id,
      until: ['completed', 'failed', 'cancelled'],
      ms: 15_000,
    });
    expect(done.status).toBe('completed');
    expect(outputText(done).split(' ')).toHaveLength(40);
    expect(validateResponse(done)).toEqual([]);
    await watcher.close();
  });

  it('resumes a disconnected background stream with starting_after, exactly the missing events', async () => {
    const { head, tail, full } = await app.page.evaluate(disconnectAndResume, {
      input: '!delay 10 !words 30',
      first: 8,
    });
    expect(head.map((e) => e.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...head, ...tail]).toEqual(full);
    expect(full.at(-1)?.type).toBe('response.completed');
    for (const e of full) expect(validateStreamEvent(e)).toEqual([]);
  });

  it('cancels a !delay background response within one token', async () => {
    const created = await app.page.evaluate(call, {
      method: 'POST',
      path: '/v1/responses',
      body: { model: 'scripted', input: '!delay 100 !words 60', background: true },
    });
    const id = String(created.body.id);
    await app.page.evaluate(pollStatus, { id, until: ['in_progress'], ms: 60_000 });
    await app.page.waitForTimeout(350);
    const cancelled = await app.page.evaluate(call, { method: 'POST', path: `/v1/responses/${id}/cancel` });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const atCancel = outputText(cancelled.body);
    // Three token times later nothing more has been generated.
    await app.page.waitForTimeout(300);
    const later = await app.page.evaluate(call, { method: 'GET', path: `/v1/responses/${id}` });
    expect(later.body.status).toBe('cancelled');
    expect(outputText(later.body)).toBe(atCancel);
    expect(atCancel.split(' ').length).toBeLessThan(60);
  });

  it('lists a conversation built over several responses in order, after a reload and a stopped service worker', async () => {
    const conv = await app.page.evaluate(call, {
      method: 'POST',
      path: '/v1/conversations',
      body: { metadata: { k: 'v' } },
    });
    const convId = String(conv.body.id);
    for (const input of ['first', 'second', 'third']) {
      const r = await app.page.evaluate(call, {
        method: 'POST',
        path: '/v1/responses',
        body: { model: 'scripted', input, conversation: convId },
      });
      expect(r.status).toBe(200);
    }
    const path = `/v1/conversations/${convId}/items?order=asc&limit=100`;
    const expected = ['first', 'You said: first', 'second', 'You said: second', 'third', 'You said: third'];
    const texts = (body: Record<string, unknown>) =>
      (body.data as { content: { text: string }[] }[]).map((i) => i.content[0]?.text);
    expect(texts((await app.page.evaluate(call, { method: 'GET', path })).body)).toEqual(expected);

    await app.page.reload();
    await waitForReady(app.page);
    await stopServiceWorkers(app.page);
    const after = await app.page.evaluate(call, { method: 'GET', path });
    expect(after.status).toBe(200);
    expect(texts(after.body)).toEqual(expected);
    const again = await app.page.evaluate(call, { method: 'GET', path: `/v1/conversations/${convId}` });
    expect(again.body).toEqual(conv.body);
  });
});
