/**
 * Another site cannot drive intab: its form posts to `/v1/responses` (the one cross-site request
 * Chromium routes through the app's service worker) get 403 and store nothing, while the app's own
 * calls (header-less `fetch`, the openai SDK) still work. Also a body over the cap is a 413.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateErrorBody } from '../helpers/spec';
import { request, useOpenAiSdk } from './api.page';
import { type AppSession, openApp } from './harness';
import { type OtherSite, startOtherSite } from './other-site';
import { postOversized, storedResponseIds, submitForm } from './security.page';

let app: AppSession & { pageErrors: string[] };
let other: OtherSite;
beforeAll(async () => {
  app = await openApp();
  other = await startOtherSite();
});
afterAll(async () => {
  await app?.close();
  await other?.close();
});

/** The JSON a tab shows as its document (Chromium renders a JSON answer as plain text). */
async function shown(page: Page): Promise<unknown> {
  const text = await page.evaluate(() => document.body.innerText);
  return JSON.parse(text);
}

describe('cross-site requests', () => {
  it('refuses a form post from another site with 403, whatever its enctype, and stores nothing', async () => {
    const before = await app.page.evaluate(storedResponseIds);
    const target = `${app.baseUrl}/v1/responses`;
    // Without the guard the text/plain form below is a valid create body: it would run and be stored.
    const forms = [
      // The body is `name=value\r\n`: the `=` lands inside metadata, so it parses as a create body.
      {
        enctype: 'text/plain',
        name: '{"model":"scripted","input":"from another site","metadata":{"x":"',
        value: '"}}',
      },
      { enctype: 'application/x-www-form-urlencoded', name: 'model', value: 'scripted' },
      { enctype: 'multipart/form-data', name: 'model', value: 'scripted' },
    ];
    const attacker = await app.context.newPage();
    for (const form of forms) {
      await attacker.goto(other.url);
      const [answer] = await Promise.all([
        attacker.waitForResponse(target),
        attacker.evaluate(submitForm, { action: target, ...form }),
      ]);
      expect(answer.status(), form.enctype).toBe(403);
      expect(answer.fromServiceWorker()).toBe(true);
      await attacker.waitForURL(target);
      const body = (await shown(attacker)) as { error: { code: string } };
      expect(validateErrorBody(body)).toEqual([]);
      expect(body.error.code).toBe('cross_site_request');
    }
    await attacker.close();
    expect(await app.page.evaluate(storedResponseIds)).toEqual(before);
  });

  it('refuses a navigation to /v1 even from the address bar: the API is not a page', async () => {
    const tab = await app.context.newPage();
    const answer = await tab.goto(`${app.baseUrl}/v1/models`);
    expect(answer?.status()).toBe(403);
    expect(await shown(tab)).toMatchObject({ error: { code: 'cross_site_request' } });
    await tab.close();
  });
});

describe("the app's own calls", () => {
  it('answers a same-origin fetch with no content type (sent as text/plain)', async () => {
    const res = await app.page.evaluate(request, {
      method: 'POST',
      path: '/v1/responses',
      body: JSON.stringify({ model: 'scripted', input: 'plain fetch' }),
    });
    expect(res.status).toBe(200);
    const created = res.body as { id: string; output: { content: { text: string }[] }[] };
    expect(created.output[0]?.content[0]?.text).toBe('You said: plain fetch');
    expect(await app.page.evaluate(storedResponseIds)).toContain(created.id);
  });

  it('still works through the openai SDK', async () => {
    const { created, streamed } = await app.page.evaluate(useOpenAiSdk, 'through the guard');
    for (const res of [created, streamed] as ApiResponse[]) {
      expect(res.status).toBe('completed');
      expect(res.output_text).toBe('You said: through the guard');
    }
  });

  it('answers a body over the 16 MiB cap with 413', async () => {
    const res = await app.page.evaluate(postOversized, 16 * 1024 * 1024 + 1);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: { code: 'request_too_large' } });
  });

  it('kept the page free of errors', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
