/**
 * Aborting a streamed fetch in the page cancels the service worker's Response body, which is the
 * engine worker's transferred stream: the core stops generating and stores the response `cancelled`.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse } from '../helpers/spec';
import { abortStreamMidway } from './api.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

describe('aborting a stream', () => {
  it('ends the response cancelled, with the generation stopped early', async () => {
    // 200 tokens at 50 ms each would take 10 s; the abort comes after the first few.
    const result = await app.page.evaluate(abortStreamMidway, {
      input: '!delay 50 !words 200',
      deltas: 3,
      pollMs: 5_000,
    });
    expect(result.id).toMatch(/^resp_/);
    expect(result.abortError).toBe('AbortError');
    expect(result.stored.status).toBe(200);
    const stored = result.stored.body as ApiResponse;
    expect(stored.status).toBe('cancelled');
    expect(validateResponse(stored)).toEqual([]);
    const words = JSON.stringify(stored.output).match(/\bw\d+\b/g) ?? [];
    expect(words.length).toBeGreaterThanOrEqual(3);
    expect(words.length).toBeLessThan(200);
  });

  it('keeps serving after the cancel', async () => {
    const status = await app.page.evaluate(async () => (await fetch('/v1/models')).status);
    expect(status).toBe(200);
  });
});
