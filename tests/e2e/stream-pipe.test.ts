/**
 * Where the engine worker cannot transfer a ReadableStream to the service worker (Safari up to
 * 26.5 throws DataCloneError), response bodies are pulled over a MessagePort instead (issue 42).
 * Chromium can transfer, so the pipe is forced here (`server.responseBodies: 'pipe'`) and the app is
 * used as through Safari: JSON, a stream in order to its end, an abort that stops the run, the SDK.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse } from '../helpers/spec';
import { abortStreamMidway, postResponse, postStream, useOpenAiSdk } from './api.page';
import { type AppSession, openApp } from './harness';

const PIPE_LINE = 'response bodies go to the service worker over a MessagePort pipe';
let app: AppSession & { pageErrors: string[]; consoleLines: string[] };
beforeAll(async () => {
  const options = { server: { responseBodies: 'pipe' } };
  app = await openApp({
    path: `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`,
    testPages: true,
  });
});
afterAll(() => app?.close());

describe('response bodies piped over a MessagePort (streams not transferable)', () => {
  it('the engine worker takes the pipe', async () => {
    await expect.poll(() => app.consoleLines.some((l) => l.includes(PIPE_LINE))).toBe(true);
  });

  it('carries a JSON create whole', async () => {
    const res = await app.page.evaluate(postResponse, { model: 'scripted', input: 'through the pipe' });
    expect(res.status).toBe(200);
    const body = res.body as ApiResponse;
    expect(body.output_text ?? JSON.stringify(body.output)).toContain('You said: through the pipe');
    expect(validateResponse(body)).toEqual([]);
  });

  it('carries a stream of 300 deltas in order, ending response.completed', async () => {
    const res = await app.page.evaluate(postStream, { model: 'scripted', input: '!words 300' });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('text/event-stream');
    const types = res.frames.map((f) => f.event);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    const seq = res.frames.map((f) => (f.data as { sequence_number: number }).sequence_number);
    expect(seq).toEqual(seq.map((_, i) => i));
    const text = res.frames
      .filter((f) => f.event === 'response.output_text.delta')
      .map((f) => (f.data as { delta: string }).delta)
      .join('');
    expect(text.trim().split(' ')).toEqual(Array.from({ length: 300 }, (_, i) => `w${i + 1}`));
  });

  it('stops the run when the page aborts the stream, and stores it cancelled', async () => {
    const result = await app.page.evaluate(abortStreamMidway, {
      input: '!delay 50 !words 200',
      deltas: 3,
      pollMs: 5_000,
    });
    expect(result.abortError).toBe('AbortError');
    const stored = result.stored.body as ApiResponse;
    expect(stored.status).toBe('cancelled');
    const words = JSON.stringify(stored.output).match(/\bw\d+\b/g) ?? [];
    expect(words.length).toBeLessThan(200);
  });

  it("serves the SDK, whose stream accumulator checks the events' order", async () => {
    const out = await app.page.evaluate(useOpenAiSdk, 'sdk over the pipe');
    expect((out.created as ApiResponse).output_text).toBe('You said: sdk over the pipe');
    expect((out.streamed as ApiResponse).output_text).toBe('You said: sdk over the pipe');
    expect(out.events.length).toBeGreaterThan(4);
  });

  it('leaves the page without errors', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
