/**
 * Aborting a streamed fetch in the page cancels the service worker's Response body, which is the
 * engine worker's transferred stream: the core stops generating and stores the response `cancelled`.
 * Aborting a non-streamed fetch reaches nothing in Chromium: the run goes on to its end.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse } from '../helpers/spec';
import { abortJsonMidway, abortStreamMidway } from './api.page';
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

  it('leaves a non-streamed request running to its end: Chromium does not tell the service worker', async () => {
    // Chromium 156 never aborts FetchEvent.request.signal when the page aborts a fetch whose
    // respondWith is pending, so neither the service worker nor the core can know. The core would
    // stop (and store `cancelled`) on that signal, and the run is bounded anyway: past jsonHoldMs the
    // core sends headers, and Chromium cancels the body of an answer to an aborted fetch. If this
    // starts ending `cancelled`, Chromium began propagating the abort: update README and this test.
    const result = await app.page.evaluate(abortJsonMidway, {
      input: '!delay 100 !words 20',
      abortAfterMs: 400,
      pollMs: 5_000,
    });
    expect(result.abortError).toBe('AbortError');
    expect(result.id).toMatch(/^resp_/);
    expect(result.status).toBe('completed');
    expect(JSON.stringify(result.output).match(/\bw\d+\b/g)).toHaveLength(20);
  });

  it('keeps serving after the cancel', async () => {
    const status = await app.page.evaluate(async () => (await fetch('/v1/models')).status);
    expect(status).toBe(200);
  });
});
