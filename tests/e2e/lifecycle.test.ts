/**
 * The runtime's lifecycle: first-load control, persistence across reloads, a service worker that
 * Chromium stopped, and an offline reload of the installed app.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postResponse } from './api.page';
import { type AppSession, openApp, stopServiceWorkers, waitForReady } from './harness';
import { controlState, getJson, reachNetwork } from './lifecycle.page';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

const hello = { model: 'scripted', input: 'hello world' };

describe('runtime lifecycle in Chromium', () => {
  it('controls the very first load, without a reload', async () => {
    const state = await app.page.evaluate(controlState);
    expect(state).toEqual({
      controlled: true,
      scriptURL: `${app.baseUrl}/sw.js`,
      navigationType: 'navigate',
    });
  });

  it('keeps a stored response across a reload', async () => {
    const created = await app.page.evaluate(postResponse, hello);
    expect(created.status).toBe(200);
    const id = (created.body as ApiResponse).id;

    await app.page.reload();
    await waitForReady(app.page);
    expect((await app.page.evaluate(controlState)).navigationType).toBe('reload');

    const again = await app.page.evaluate(getJson, `/v1/responses/${id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
  });

  it('answers the next request after Chromium stops the service worker', async () => {
    await stopServiceWorkers(app.page);

    const res = await app.page.evaluate(postResponse, hello);
    expect(res.status).toBe(200);
    expect((res.body as ApiResponse).status).toBe('completed');
  });

  it('reloads offline from the precache and still answers with `scripted`', async () => {
    await app.context.setOffline(true);
    try {
      await app.page.reload();
      await waitForReady(app.page);
      const res = await app.page.evaluate(postResponse, { model: 'scripted', input: 'offline hello' });
      expect(res.status).toBe(200);
      expect(JSON.stringify((res.body as ApiResponse).output)).toContain('"text":"You said: offline hello"');
      // Control: the network really is gone for anything the service worker does not serve.
      expect(await app.page.evaluate(reachNetwork, '/not-precached.txt')).toBe('failed');
    } finally {
      await app.context.setOffline(false);
    }
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
