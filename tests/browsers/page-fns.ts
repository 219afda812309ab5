/**
 * What the matrix runs inside the page: only the public API a user's app has (`fetch('/v1/…')`,
 * `window.OpenAI`, `window.intab`, `new WebSocket(…)`). Each function crosses to the browser as its
 * source text, so each is self-contained, and each bounds its own waits (`AbortSignal.timeout` on a
 * fetch bounds its body too) and says which wait ran out.
 *
 * @example
 * const { status, body } = await tab.evaluate(createJson, { body: { model: 'scripted', input: 'hi' }, ms: 30_000 });
 */
import type { Json } from './drivers/types';

/** A `/v1` answer as the page saw it: the status and the parsed JSON (or the text, if not JSON). */
export interface Answer {
  status: number;
  body: Json;
}

/** One server-sent event: its `event:` field and its parsed `data:`. */
export interface SseEvent {
  event: string;
  data: { type: string; sequence_number: number } & Record<string, Json>;
}

/**
 * Waits until the page is controlled and `GET /v1/models` answers 200 JSON through the service
 * worker (DESIGN: a page is ready then); answers the model list. Throws the last thing it saw.
 */
export async function waitReady(arg: { ms: number }): Promise<Answer> {
  const end = Date.now() + arg.ms;
  let last = 'nothing yet';
  while (Date.now() < end) {
    if (!('serviceWorker' in navigator)) throw new Error('no navigator.serviceWorker in this page');
    if (navigator.serviceWorker.controller) {
      try {
        const res = await fetch('/v1/models', { signal: AbortSignal.timeout(10_000) });
        const text = await res.text();
        if (res.status === 200 && res.headers.get('content-type')?.includes('json'))
          return { status: 200, body: JSON.parse(text) };
        last = `HTTP ${res.status} ${text.slice(0, 300)}`;
      } catch (err) {
        last = String(err);
      }
    } else {
      last = 'page not controlled by the service worker';
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`intab not ready after ${arg.ms} ms: ${last}`);
}

/** What the page has that intab picks its builds and storage by, for the log. */
export function pageFacts(_: null) {
  return {
    userAgent: navigator.userAgent,
    // llama.cpp's default thread count follows it (one fewer, when cross-origin isolated).
    cores: navigator.hardwareConcurrency,
    sharedArrayBuffer: typeof SharedArrayBuffer,
    crossOriginIsolated: self.crossOriginIsolated === true,
    opfs: typeof navigator.storage?.getDirectory === 'function',
    storageEstimate: typeof navigator.storage?.estimate === 'function',
    requestBody: 'body' in Request.prototype,
    webLocks: typeof navigator.locks?.request === 'function',
  };
}

/** `method path` with a JSON body (none for GET), within `ms`. */
export async function callJson(arg: {
  method: string;
  path: string;
  body?: Json;
  ms: number;
}): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(arg.path, {
      method: arg.method,
      headers: arg.body === undefined ? {} : { 'content-type': 'application/json' },
      body: arg.body === undefined ? undefined : JSON.stringify(arg.body),
      signal: AbortSignal.timeout(arg.ms),
    });
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text) };
    } catch {
      return { status: res.status, body: text.slice(0, 500) };
    }
  } catch (err) {
    throw new Error(`${arg.method} ${arg.path}: no answer within ${arg.ms} ms (${err})`);
  }
}

/** `POST /v1/responses` with `stream: true`; answers the events in the order they came. */
export async function createSse(arg: { body: Json; ms: number }) {
  let res: Response;
  let text: string;
  try {
    res = await fetch('/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(arg.body),
      signal: AbortSignal.timeout(arg.ms),
    });
    text = await res.text();
  } catch (err) {
    throw new Error(`POST /v1/responses (stream): not ended within ${arg.ms} ms (${err})`);
  }
  const events: { event: string; data: unknown }[] = [];
  for (const frame of text.split(/\r?\n\r?\n/)) {
    let event = '';
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) continue;
    const joined = data.join('\n');
    let parsed: unknown = joined;
    try {
      parsed = JSON.parse(joined);
    } catch {
      // Kept as text: the assertion on its type shows what came.
    }
    events.push({ event, data: parsed });
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    events,
    text: res.status === 200 ? '' : text.slice(0, 500),
  };
}

/** The `openai` SDK as a user's app builds it (`window.OpenAI`), creating one response. */
export async function sdkCreate(arg: { body: Json; ms: number }) {
  const client = new window.OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab-local',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
    timeout: arg.ms,
  });
  const res = await client.responses.create(arg.body as never);
  return { id: res.id, status: res.status, text: res.output_text, model: res.model };
}

/** How this document was loaded (`navigate`, `reload`): the proof a reload made a new page. */
export function navigationType(_: null): string {
  const [entry] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
  return entry?.type ?? 'unknown';
}

/** Whether this tab runs the origin's engine worker (`window.intab`). */
export function isLeader(_: null): boolean {
  return window.intab.isLeader();
}

/** Whether `path` reaches the network: answers `failed` once the server is gone. */
export async function reach(arg: { path: string; ms: number }): Promise<string> {
  try {
    const res = await fetch(arg.path, { cache: 'no-store', signal: AbortSignal.timeout(arg.ms) });
    return `HTTP ${res.status}`;
  } catch {
    return 'failed';
  }
}

/**
 * WebSocket mode: on a page that opted in (`startIntab({ webSocket: true })`), one
 * `response.create` over `new WebSocket(origin + '/v1/responses')`; answers every event through
 * the terminal one.
 */
export async function wsCreate(arg: { body: Json; ms: number }) {
  const deadline = (what: string) =>
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`WebSocket mode: ${what} within ${arg.ms} ms`)), arg.ms),
    );
  await Promise.race([window.intab.ready, deadline('intab not ready')]);
  const url = `${location.origin.replace(/^http/, 'ws')}/v1/responses`;
  const ws = new WebSocket(url);
  const events: Json[] = [];
  const done = new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () =>
      ws.send(JSON.stringify({ type: 'response.create', ...(arg.body as object) })),
    );
    ws.addEventListener('error', () => reject(new Error(`WebSocket mode: the socket to ${url} failed`)));
    ws.addEventListener('message', (e) => {
      const event = JSON.parse(String((e as MessageEvent).data));
      events.push(event);
      if (/^response\.(completed|failed|incomplete)$|^error$/.test(event.type)) resolve();
    });
  });
  try {
    await Promise.race([done, deadline('no terminal event')]);
  } finally {
    ws.close(1000);
  }
  return { url: ws.url, events };
}
