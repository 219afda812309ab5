/**
 * An e2e page for WebSocket mode: it starts intab with `webSocket: true` (plus the options in the
 * URL's hash, as options.ts does), then exposes the scenarios the tests run in the page: the
 * compliance behaviours through `new WebSocket(…)`, the `openai` SDK's `ResponsesWSBase` over
 * `IntabSocketLike`, and a look at sockets intab must leave to the browser.
 */
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ResponsesWSBase } from 'openai/resources/responses/ws-base';
import { IntabSocketLike, IntabWebSocket, type StartIntabOptions, startIntab } from '../../../src/client';
import { runScenarios } from '../../helpers/ws-scenarios';

// The browser's own class, taken before intab routes `new WebSocket`.
const Native = WebSocket;
const options = JSON.parse(decodeURIComponent(location.hash.slice(1)) || '{}') as StartIntabOptions;
const intab = startIntab({ ...options, webSocket: true });
const wsUrl = `${location.origin.replace(/^http/, 'ws')}/v1/responses`;

async function compact(body: unknown): Promise<unknown> {
  const res = await fetch('/v1/responses/compact', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

/** The compliance behaviours through the page's own `new WebSocket(…)`. */
async function wsScenarios(model: string, extra: Record<string, unknown> = {}) {
  await intab.ready;
  return runScenarios(() => new WebSocket(wsUrl), model, compact, extra);
}

/** README's SDK recipe in the page: three turns of `ResponsesWSBase` over `IntabSocketLike`. */
async function sdkScenario(model: string, extra: Record<string, unknown> = {}) {
  await intab.ready;
  class IntabResponsesWS extends ResponsesWSBase<IntabSocketLike> {
    constructor(client: OpenAI) {
      super(client);
      this._connectInitial();
    }
    protected _createSocket(url: URL, headers: Record<string, string>): IntabSocketLike {
      return new IntabSocketLike(url, { headers });
    }
  }
  const client = new OpenAI({
    apiKey: 'unused',
    baseURL: `${location.origin}/v1`,
    dangerouslyAllowBrowser: true,
  });
  const ws = new IntabResponsesWS(client);
  const turn = (body: Record<string, unknown>) =>
    new Promise<{ events: string[]; response?: Record<string, unknown>; error?: string }>((resolve) => {
      const events: string[] = [];
      const onEvent = (e: ResponseStreamEvent) => {
        events.push(e.type);
        if (
          e.type === 'response.completed' ||
          e.type === 'response.failed' ||
          e.type === 'response.incomplete'
        ) {
          off();
          resolve({ events, response: e.response as unknown as Record<string, unknown> });
        }
      };
      const onError = (err: Error) => {
        off();
        resolve({ events, error: err.message });
      };
      const off = () => {
        ws.off('event', onEvent as never);
        ws.off('error', onError);
      };
      ws.on('event', onEvent as never);
      ws.on('error', onError);
      ws.send({ type: 'response.create', ...extra, ...body } as never);
    });
  const first = await turn({ model, input: 'hello', store: false });
  const next = await turn({ model, input: 'more', previous_response_id: first.response?.id, store: false });
  const missing = await turn({ model, input: 'x', previous_response_id: 'resp_gone0' });
  ws.close({ code: 1000, reason: 'done' });
  return { url: ws.url.href, first, next, missing };
}

/** Sockets intab must not touch: another origin's, and this origin's other paths. */
async function untouched(otherUrl: string) {
  const echo = await new Promise<string>((resolve, reject) => {
    const ws = new WebSocket(otherUrl);
    ws.onopen = () => ws.send('ping');
    ws.onmessage = (e) => {
      resolve(String(e.data));
      ws.close();
    };
    ws.onerror = () => reject(new Error(`could not reach ${otherUrl}`));
  });
  const kinds = [otherUrl, `${location.origin.replace(/^http/, 'ws')}/v1/other`, `${wsUrl}/x`, wsUrl].map(
    (url) => {
      const ws = new WebSocket(url);
      const kind =
        ws instanceof IntabWebSocket
          ? 'intab'
          : Object.getPrototypeOf(ws) === Native.prototype
            ? 'native'
            : 'other';
      const isWebSocket = ws instanceof WebSocket;
      ws.close();
      return { url, kind, isWebSocket };
    },
  );
  return { echo, kinds };
}

/** Closes a socket mid-stream; answers the stored status its response ends with (polled, bounded). */
async function closeMidStream() {
  await intab.ready;
  const ws = new WebSocket(wsUrl);
  const id = await new Promise<string>((resolve) => {
    let responseId = '';
    ws.onopen = () =>
      ws.send(JSON.stringify({ type: 'response.create', model: 'scripted', input: '!delay 50 !words 400' }));
    ws.onmessage = (e) => {
      const event = JSON.parse(e.data);
      if (event.type === 'response.created') responseId = event.response.id;
      if (event.type === 'response.output_text.delta') resolve(responseId);
    };
  });
  ws.close(1000);
  for (let i = 0; i < 300; i++) {
    const { status } = await (await fetch(`/v1/responses/${id}`)).json();
    if (status !== 'in_progress') return status as string;
    await new Promise((r) => setTimeout(r, 100));
  }
  return 'still in_progress';
}

Object.assign(window, { intab, wsScenarios, sdkScenario, untouched, closeMidStream });
