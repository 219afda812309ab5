/**
 * WebSocket mode in Chromium: `new WebSocket(origin + '/v1/responses')` in a page started with
 * `webSocket: true` is served by intab through the service worker and the engine worker's core (the
 * same create as HTTP), on `scripted` and on the tiny GGUF; the `openai` SDK's `ResponsesWSBase`
 * runs over `IntabSocketLike`; every other socket is the browser's own (a real echo server answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { WsEvent } from '../helpers/ws-scenarios';
import { type AppSession, openApp } from './harness';
import { TINY_URL } from './wllama-app';

type Results = Record<string, WsEvent[]> & { compactOutput: { type: string }[] };
type Page = AppSession['page'];

const wsOptions = { wllama: { models: [{ id: 'tiny', url: TINY_URL }] } };
let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp({
    path: `/tests/e2e/pages/websocket.html#${encodeURIComponent(JSON.stringify(wsOptions))}`,
    testPages: true,
  });
}, 600_000);
afterAll(async () => {
  try {
    expect(app?.pageErrors ?? [], 'errors in the page').toEqual([]);
  } finally {
    await app?.close();
  }
});

const lastOf = (events: WsEvent[] | undefined) => events?.at(-1) as WsEvent;
const response = (events: WsEvent[] | undefined) => lastOf(events).response as Record<string, unknown>;
/** A few tokens are enough: the tiny model's random weights rarely stop on their own. */
const extraFor = (model: string) => (model === 'tiny' ? { max_output_tokens: 16 } : {});
const run = (page: Page, model: string) =>
  page.evaluate(
    ([m, extra]) =>
      (window as unknown as { wsScenarios(m: string, e: unknown): Promise<Results> }).wsScenarios(m, extra),
    [model, extraFor(model)] as const,
  );

/** What holds on any model: the event flow, the cache per connection, eviction, errors, compaction. */
function expectCompliance(r: Results) {
  for (const turn of [r.first, r.second, r.afterBad, r.cleanAfter, r.fromCompact, r.fromCompactNext]) {
    expect(turn?.[0]?.type).toBe('response.created');
    expect(['response.completed', 'response.incomplete']).toContain(lastOf(turn).type);
  }
  expect(response(r.second).id).not.toBe(response(r.first).id);
  expect(['response.completed', 'response.incomplete']).toContain(lastOf(r.continued).type);
  expect(response(r.continued).previous_response_id).toBe(response(r.first).id);
  for (const [events, code] of [
    [r.badJson, 'invalid_json'],
    [r.badType, 'invalid_value'],
    [r.streamField, 'unsupported_parameter'],
  ] as const) {
    expect(events).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({ code, type: 'invalid_request_error' }),
      }),
    ]);
  }
  expect(lastOf(r.missing)).toMatchObject({ type: 'error', error: { code: 'previous_response_not_found' } });
  expect(['response.failed', 'error']).toContain(lastOf(r.failed).type);
  expect(lastOf(r.afterEvict)).toMatchObject({
    type: 'error',
    error: { code: 'previous_response_not_found' },
  });
  expect(lastOf(r.otherConn)).toMatchObject({
    type: 'error',
    error: { code: 'previous_response_not_found' },
  });
  expect(r.compactOutput.map((i) => i.type)).toContain('compaction');
}

describe('WebSocket mode in the page', () => {
  it('serves the compliance behaviours on scripted through new WebSocket()', async () => {
    const r = await run(app.page, 'scripted');
    expectCompliance(r);
    expect(lastOf(r.failed).type).toBe('response.failed');
    const text = (e: WsEvent[] | undefined) =>
      ((response(e).output as { content: { text: string }[] }[])[0]?.content[0]?.text ?? '') as string;
    expect(text(r.first)).toBe('You said: hello there');
    expect(JSON.parse(text(r.continued)).map((m: { content: string }) => m.content)).toEqual([
      'hello there',
      'You said: hello there',
      '!transcript',
    ]);
  }, 120_000);

  it('serves them on the tiny GGUF (llama.cpp in wasm)', async () => {
    const r = await run(app.page, 'tiny');
    expectCompliance(r);
    expect(lastOf(r.failed)).toMatchObject({ type: 'error', error: { param: 'temperature' } });
  }, 300_000);

  for (const model of ['scripted', 'tiny']) {
    it(`runs the openai SDK's ResponsesWSBase over IntabSocketLike (${model})`, async () => {
      const r = await app.page.evaluate(
        ([m, extra]) =>
          (
            window as unknown as { sdkScenario(m: string, e: unknown): Promise<Record<string, never>> }
          ).sdkScenario(m, extra),
        [model, extraFor(model)] as const,
      );
      const { first, next, missing } = r as unknown as Record<
        string,
        { events: string[]; response?: { id: string; previous_response_id: string }; error?: string }
      >;
      expect(r.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/responses$/);
      expect(first?.events[0]).toBe('response.created');
      expect(first?.events).toContain('response.output_text.delta');
      expect(next?.response?.previous_response_id).toBe(first?.response?.id);
      expect(missing?.error).toMatch(/not found/);
    }, 300_000);
  }

  it('closing the socket stops the response it was running (stored cancelled), as an aborted fetch does', async () => {
    const status = await app.page.evaluate(() =>
      (window as unknown as { closeMidStream(): Promise<string> }).closeMidStream(),
    );
    expect(status).toBe('cancelled');
  });

  it('leaves every other WebSocket to the browser', async () => {
    const echo = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    echo.on('connection', (socket) => socket.on('message', (data) => socket.send(`echo ${data}`)));
    await new Promise((r) => echo.once('listening', r));
    const { port } = echo.address() as { port: number };
    try {
      const r = await app.page.evaluate(
        (url) =>
          (
            window as unknown as {
              untouched(
                u: string,
              ): Promise<{ echo: string; kinds: { kind: string; isWebSocket: boolean }[] }>;
            }
          ).untouched(url),
        `ws://127.0.0.1:${port}/socket`,
      );
      expect(r.echo).toBe('echo ping');
      expect(r.kinds.map((k) => k.kind)).toEqual(['native', 'native', 'native', 'intab']);
      expect(r.kinds.every((k) => k.isWebSocket)).toBe(true);
    } finally {
      echo.close();
    }
  });
});
