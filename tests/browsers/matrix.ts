/**
 * The browser matrix, written once over {@link BrowserSession}: what a user's app meets on the demo
 * as `npm start` serves it, in one browser setting. The rows run in order in one session (one
 * storage partition): ready; `scripted` as JSON and SSE; stored responses across a reload; the tiny
 * GGUF (real llama.cpp in wasm) as JSON and SSE; the `openai` SDK; a second tab; WebSocket mode; and
 * last an offline reload with the server stopped.
 *
 * @example
 * // tests/browsers/firefox.test.ts
 * browserMatrix('Firefox ESR', launchFirefox);
 */
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DIST, servePreview, WS_DIST, WS_PAGE } from './builds';
import type { BrowserSession, Tab } from './drivers/types';
import {
  type Answer,
  callJson,
  createSse,
  isLeader,
  navigationType,
  pageFacts,
  reach,
  type SseEvent,
  sdkCreate,
  waitReady,
  wsCreate,
} from './page-fns';

/** The demo registers the tiny test GGUF under this id (src/demo/main.ts). */
const GGUF = 'tiny-random';
/** Its random weights rarely stop on their own: a few tokens are enough. */
const GGUF_TOKENS = 16;
/** Bounds of the waits inside the page; the rows' own timeouts sit above them. */
const READY_MS = 60_000;
const CALL_MS = 60_000;
/** A first GGUF create loads the model (fetch, wasm compile, weights) in the engine worker. */
const GGUF_MS = 150_000;
const ROW_MS = 180_000;

type Json = Record<string, unknown>;
const outputText = (body: unknown) =>
  ((body as { output?: { type: string; content?: { type: string; text?: string }[] }[] }).output ?? [])
    .flatMap((item) => (item.type === 'message' ? (item.content ?? []) : []))
    .map((part) => part.text ?? '')
    .join('');

/** Waits for readiness, with what the page logged so far when it does not come. */
async function ready(tab: Tab): Promise<Answer> {
  try {
    return await tab.evaluate(waitReady, { ms: READY_MS }, READY_MS + 10_000);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : err}\npage log:\n${tab.log.join('\n')}`);
  }
}

const post = (tab: Tab, body: Json, ms = CALL_MS) =>
  tab.evaluate(callJson, { method: 'POST', path: '/v1/responses', body: body as never, ms }, ms + 10_000);
const get = (tab: Tab, path: string) =>
  tab.evaluate(callJson, { method: 'GET', path, ms: CALL_MS }, CALL_MS + 10_000);
const stream = (tab: Tab, body: Json, ms = CALL_MS) =>
  tab.evaluate(createSse, { body: { ...body, stream: true } as never, ms }, ms + 10_000);

/** An SSE answer's events are well formed and in order, from `response.created` to `ending`. */
function expectEventFlow(res: Awaited<ReturnType<typeof stream>>, ending: string[]) {
  expect(res.status, res.text).toBe(200);
  expect(res.contentType).toContain('text/event-stream');
  const events = res.events as SseEvent[];
  expect(events.map((e) => e.data.type).slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
  const last = events.at(-1)?.data;
  // A failed run's error says why, e.g. a model that would not load.
  expect(ending, JSON.stringify((last?.response as Json | undefined)?.error ?? last)).toContain(last?.type);
  for (const e of events) expect(e.event).toBe(e.data.type);
  expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
  const deltas = events.filter((e) => e.data.type === 'response.output_text.delta').map((e) => e.data.delta);
  const final = events.at(-1)?.data.response;
  expect(deltas.join('')).toBe(outputText(final));
  return { deltas, final: final as Json };
}

/** Runs the whole matrix in the browser `launch` starts; `name` heads the rows. */
export function browserMatrix(name: string, launch: () => Promise<BrowserSession>): void {
  let browser: BrowserSession;
  let tab: Tab;
  let demo: { baseUrl: string; server: PreviewServer };
  let wsSite: { baseUrl: string; server: PreviewServer };
  let demoStopped = false;

  beforeAll(async () => {
    demo = await servePreview(DEMO_DIST);
    wsSite = await servePreview(WS_DIST);
    browser = await launch();
    tab = await browser.newTab();
    await tab.goto(`${demo.baseUrl}/`);
  }, ROW_MS);
  afterAll(async () => {
    await browser?.close();
    if (!demoStopped) await demo?.server.close();
    await wsSite?.server.close();
  });

  describe(name, () => {
    it('is ready: /v1/models answers 200 in the page and lists scripted and the tiny GGUF', async () => {
      const models = await ready(tab);
      const ids = (models.body as { data: { id: string }[] }).data.map((m) => m.id);
      console.info(`[${name}] ${browser.version}: ${JSON.stringify(await tab.evaluate(pageFacts, null))}`);
      expect(ids).toEqual(expect.arrayContaining(['scripted', GGUF]));
    });

    it('creates with scripted as JSON', async () => {
      const res = await post(tab, { model: 'scripted', input: 'hello json' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ object: 'response', status: 'completed', model: 'scripted' });
      expect(outputText(res.body)).toBe('You said: hello json');
    });

    it('creates with scripted as SSE, events in order, ending response.completed', async () => {
      const res = await stream(tab, { model: 'scripted', input: 'hello stream' });
      const { deltas } = expectEventFlow(res, ['response.completed']);
      expect(deltas).toEqual(['You', ' said:', ' hello', ' stream']);
    });

    it('keeps two stored responses across a reload', async () => {
      const made = [await post(tab, { model: 'scripted', input: 'keep one' })];
      made.push(await post(tab, { model: 'scripted', input: 'keep two' }));
      for (const res of made) expect(res.status, JSON.stringify(res.body)).toBe(200);
      const ids = made.map((res) => (res.body as { id: string }).id);
      await tab.reload();
      await ready(tab);
      expect(await tab.evaluate(navigationType, null)).toBe('reload');
      for (const [i, id] of ids.entries()) {
        const res = await get(tab, `/v1/responses/${id}`);
        expect(res.status, `GET /v1/responses/${id} after the reload: ${JSON.stringify(res.body)}`).toBe(200);
        expect(outputText(res.body)).toBe(`You said: keep ${['one', 'two'][i]}`);
      }
    });

    it(
      'answers with the tiny GGUF (real llama.cpp) as JSON',
      async () => {
        const res = await post(
          tab,
          { model: GGUF, input: 'Hello, tiny model', max_output_tokens: GGUF_TOKENS },
          GGUF_MS,
        );
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        // A long create answers 200 at once and carries its error in the body (DESIGN §4).
        expect(res.body, JSON.stringify(res.body)).toMatchObject({ model: GGUF });
        expect(['completed', 'incomplete']).toContain((res.body as Json).status);
        expect((res.body as { usage: { output_tokens: number } }).usage.output_tokens).toBeGreaterThan(0);
        expect(outputText(res.body)).not.toBe('');
        expect(outputText(res.body)).not.toContain('You said');
        // Which llama.cpp build and how many threads the engine reports once the model is loaded.
        const models = await get(tab, '/v1/models');
        const entry = (models.body as { data: Json[] }).data.find((m) => m.id === GGUF);
        console.info(`[${name}] ${GGUF} loaded: ${JSON.stringify(entry)}`);
      },
      ROW_MS,
    );

    it(
      'streams the tiny GGUF as SSE, real tokens in order',
      async () => {
        const res = await stream(
          tab,
          { model: GGUF, input: 'Stream, tiny model', max_output_tokens: GGUF_TOKENS },
          GGUF_MS,
        );
        const { deltas, final } = expectEventFlow(res, ['response.completed', 'response.incomplete']);
        expect(deltas.length).toBeGreaterThan(0);
        expect(final.model).toBe(GGUF);
        expect(outputText(final)).not.toContain('You said');
      },
      ROW_MS,
    );

    it('creates through the openai SDK (window.OpenAI)', async () => {
      const res = await tab.evaluate(sdkCreate, {
        body: { model: 'scripted', input: 'hello sdk' },
        ms: CALL_MS,
      });
      expect(res).toMatchObject({ status: 'completed', text: 'You said: hello sdk', model: 'scripted' });
      expect(res.id).toMatch(/^resp_/);
    });

    it("serves a second tab from the first tab's engine", async () => {
      const second = await browser.newTab();
      try {
        await second.goto(`${demo.baseUrl}/`);
        await ready(second);
        // One engine per origin: the first tab runs it, the second has none of its own.
        expect(await tab.evaluate(isLeader, null)).toBe(true);
        expect(await second.evaluate(isLeader, null)).toBe(false);
        const res = await post(second, { model: 'scripted', input: 'from the second tab' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(outputText(res.body)).toBe('You said: from the second tab');
        const id = (res.body as { id: string }).id;
        expect((await get(tab, `/v1/responses/${id}`)).status).toBe(200);
      } finally {
        await second.close();
      }
    });

    it('serves WebSocket mode on a page that opts in', async () => {
      const page = await browser.newTab();
      try {
        await page.goto(`${wsSite.baseUrl}${WS_PAGE}`);
        await ready(page);
        const res = await page.evaluate(wsCreate, {
          body: { model: 'scripted', input: 'hello socket' },
          ms: CALL_MS,
        });
        const events = res.events as { type: string; response?: Json; delta?: string }[];
        expect(res.url).toBe(`${wsSite.baseUrl.replace(/^http/, 'ws')}/v1/responses`);
        expect(
          events.map((e) => e.type).slice(0, 2),
          `the socket's first event: ${JSON.stringify(events[0])}`,
        ).toEqual(['response.created', 'response.in_progress']);
        expect(events.at(-1)?.type, JSON.stringify(events.at(-1))).toBe('response.completed');
        expect(outputText(events.at(-1)?.response)).toBe('You said: hello socket');
        const deltas = events.filter((e) => e.type === 'response.output_text.delta');
        expect(deltas.map((e) => e.delta).join('')).toBe('You said: hello socket');
      } finally {
        await page.close();
      }
    });

    it('reloads offline from the precached shell, lists models and creates', async () => {
      await demo.server.close();
      demoStopped = true;
      // The control: the server is really gone for what the service worker does not serve.
      expect(await tab.evaluate(reach, { path: '/not-precached.txt', ms: 10_000 })).toBe('failed');
      await tab.reload();
      const models = await ready(tab);
      expect(await tab.evaluate(navigationType, null)).toBe('reload');
      expect((models.body as { data: { id: string }[] }).data.map((m) => m.id)).toContain('scripted');
      const res = await post(tab, { model: 'scripted', input: 'offline hello' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(outputText(res.body)).toBe('You said: offline hello');
    });
  });
}
