/**
 * The Responses API answered from inside the tab: JSON and SSE through the service worker, checked
 * against the Open Responses spec.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse, validateStreamEvent } from '../helpers/spec';
import { postResponse, postStream } from './api.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

/** The text of every output_text part, concatenated. */
function outputText(res: ApiResponse): string {
  return res.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
}

describe('POST /v1/responses through the service worker', () => {
  it('answers JSON that matches the spec', async () => {
    const res = await app.page.evaluate(postResponse, { model: 'scripted', input: 'hello world' });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/json');
    expect(validateResponse(res.body)).toEqual([]);
    const body = res.body as ApiResponse;
    expect(body.status).toBe('completed');
    expect(outputText(body)).toBe('You said: hello world');
  });

  it('streams SSE events that match the spec, in order, ending completed', async () => {
    const res = await app.page.evaluate(postStream, { model: 'scripted', input: 'hello world' });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('text/event-stream');
    const events = res.frames.map((f) => f.data as { type: string; sequence_number: number });
    for (const [i, frame] of res.frames.entries()) {
      expect(validateStreamEvent(frame.data), `event ${i} (${frame.event})`).toEqual([]);
      expect(frame.event).toBe(events[i]?.type);
    }
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0]?.type).toBe('response.created');
    const last = events.at(-1) as unknown as { type: string; response: ApiResponse };
    expect(last.type).toBe('response.completed');
    expect(outputText(last.response)).toBe('You said: hello world');
    const deltas = events.filter((e) => e.type === 'response.output_text.delta') as unknown as {
      delta: string;
    }[];
    // One delta per whitespace-separated token, each carrying its leading space.
    expect(deltas.map((d) => d.delta)).toEqual(['You', ' said:', ' hello', ' world']);
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
