/**
 * The official `openai` SDK, running in the page against `location.origin + '/v1'`: its strict stream
 * accumulator rejects misordered events, so `finalResponse()` succeeding is itself a check.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse, validateStreamEvent } from '../helpers/spec';
import { useOpenAiSdk } from './api.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

describe('the openai SDK in the page', () => {
  it('creates and streams responses', async () => {
    const { created, streamed, events } = await app.page.evaluate(useOpenAiSdk, 'hello world');
    for (const res of [created, streamed] as ApiResponse[]) {
      expect(validateResponse(res)).toEqual([]);
      expect(res.status).toBe('completed');
      expect(res.output_text).toBe('You said: hello world');
    }
    expect(events.length).toBeGreaterThan(4);
    for (const event of events) expect(validateStreamEvent(event)).toEqual([]);
  });
});
