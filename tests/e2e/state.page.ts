/**
 * Page-side scripts for the state hardening tests (issue 15, classes 10–15), run on
 * tests/e2e/pages/options.html (which exposes `window.OpenAI`). Each is self-contained, see
 * api.page.ts: helpers are defined inside the function that uses them.
 */

type Json = Record<string, unknown>;

/** An SSE frame's events: `{type, …}` per `data:` line. */
type Frame = Json & { type: string; sequence_number: number };

/**
 * Starts `body` as a direct stream, reads until the first text delta, then `DELETE`s the response
 * and reads the stream to its end. Then waits `waitMs` (past the run's natural end) and asks again.
 */
export async function deleteWhileStreaming(args: { input: string; waitMs: number }): Promise<{
  id: string;
  deleted: number;
  ended: boolean;
  /** The `response.output_text.delta` events the stream carried in all. */
  deltas: number;
  last: { type: string; status: string | null } | null;
  afterwards: number;
}> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', input: args.input, stream: true }),
  });
  if (!res.body) throw new Error(`no body (HTTP ${res.status})`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('response.output_text.delta')) {
    const { done, value } = await reader.read();
    if (done) throw new Error('ended before any delta');
    text += value;
  }
  const id = /"id":"(resp_[0-9a-f]+)"/.exec(text)?.[1] ?? '';
  const deleted = (await fetch(`/v1/responses/${id}`, { method: 'DELETE' })).status;
  let ended = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    text += value;
  }
  const deltas = text.split('"type":"response.output_text.delta"').length - 1;
  const frames = text.split('\n\n').filter((f) => f.includes('data:'));
  const lastData = frames
    .at(-1)
    ?.split('\n')
    .find((l) => l.startsWith('data:'));
  const lastEvent = lastData ? (JSON.parse(lastData.slice(5)) as Frame) : null;
  await new Promise((r) => setTimeout(r, args.waitMs));
  const afterwards = (await fetch(`/v1/responses/${id}`)).status;
  const status = (lastEvent?.response as { status?: string } | undefined)?.status ?? null;
  return {
    id,
    deleted,
    ended,
    deltas,
    last: lastEvent && { type: lastEvent.type, status },
    afterwards,
  };
}

/**
 * Starts a JSON (or background) request, waits until the stored response is `in_progress`,
 * `DELETE`s it, then waits `waitMs` and asks for it again.
 */
export async function deleteWhileRunning(args: {
  input: string;
  background: boolean;
  waitMs: number;
}): Promise<{ deleted: number; answer: number; answerStatus: string | null; afterwards: number[] }> {
  const post = fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', input: args.input, background: args.background }),
  });
  let id = '';
  if (args.background) {
    id = String(((await (await post).json()) as Json).id);
  } else {
    // A JSON request answers only at its end: find it in intab's storage listing meanwhile.
    for (let i = 0; i < 200 && !id; i++) {
      const listing = (await (await fetch('/v1/intab/storage?limit=20')).json()) as {
        responses: { id: string; status: string }[];
      };
      id = listing.responses.find((r) => r.status === 'in_progress')?.id ?? '';
      if (!id) await new Promise((r) => setTimeout(r, 20));
    }
  }
  for (let i = 0; i < 200; i++) {
    const body = (await (await fetch(`/v1/responses/${id}`)).json()) as Json;
    if (body.status === 'in_progress') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 200));
  const deleted = (await fetch(`/v1/responses/${id}`, { method: 'DELETE' })).status;
  const answered = await post;
  const answerBody = args.background ? null : ((await answered.json()) as Json);
  await new Promise((r) => setTimeout(r, args.waitMs));
  const afterwards = [
    (await fetch(`/v1/responses/${id}`)).status,
    (await fetch(`/v1/responses/${id}?stream=true`)).status,
  ];
  return {
    deleted,
    answer: answered.status,
    answerStatus: answerBody ? String(answerBody.status) : null,
    afterwards,
  };
}

/**
 * Starts a direct stream and reads until the first text delta, then stops reading (the reader is
 * kept on `window` so nothing cancels it); the test then stops the service worker.
 */
export async function streamThenHold(input: string): Promise<string> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', input, stream: true }),
  });
  if (!res.body) throw new Error(`no body (HTTP ${res.status})`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('response.output_text.delta')) text += (await reader.read()).value ?? '';
  (window as unknown as { held: unknown }).held = reader;
  return /"id":"(resp_[0-9a-f]+)"/.exec(text)?.[1] ?? '';
}

/** Polls `GET /v1/responses/{id}` until it is no longer `in_progress` (bounded by `ms`); how long that took. */
export async function untilSettled(args: { id: string; ms: number }): Promise<{ body: Json; ms: number }> {
  const started = performance.now();
  for (;;) {
    const body = (await (await fetch(`/v1/responses/${args.id}`)).json()) as Json;
    const ms = Math.round(performance.now() - started);
    if (body.status !== 'in_progress' || ms > args.ms) return { body, ms };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Replays a stored response twice: raw (`GET ?stream=true`, every frame) and through the `openai`
 * SDK's stream helper (`responses.stream({ response_id })`), which must accept it.
 */
export async function replay(id: string): Promise<{ frames: Frame[]; events: string[]; final: Json }> {
  const text = await (await fetch(`/v1/responses/${id}?stream=true`)).text();
  const frames = text
    .split('\n\n')
    .map((f) =>
      f
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d !== '')
    .map((d) => JSON.parse(d) as Frame);
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
  });
  const stream = client.responses.stream({ response_id: id });
  const events: string[] = [];
  stream.on('event', (e) => events.push(e.type));
  const final = (await stream.finalResponse()) as unknown as Json;
  return { frames, events, final };
}

/** `POST /v1/responses` with `body` (not streamed); the status and JSON. */
export async function create(body: Json): Promise<{ status: number; body: Json }> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/**
 * Starts a JSON request on `conversation`, deletes the conversation while the model runs, and
 * returns the request's answer and the stored response.
 */
export async function deleteConversationMidRun(args: { input: string }): Promise<{
  answer: number;
  error: Json | null;
  stored: Json;
}> {
  const conv = (await (
    await fetch('/v1/conversations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  ).json()) as { id: string };
  const post = fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', input: args.input, conversation: conv.id }),
  });
  let id = '';
  for (let i = 0; i < 200 && !id; i++) {
    const listing = (await (await fetch('/v1/intab/storage?limit=20')).json()) as {
      responses: { id: string; status: string }[];
    };
    id = listing.responses.find((r) => r.status === 'in_progress')?.id ?? '';
    if (!id) await new Promise((r) => setTimeout(r, 20));
  }
  await fetch(`/v1/conversations/${conv.id}`, { method: 'DELETE' });
  const answered = await post;
  const body = (await answered.json()) as { error?: Json };
  const stored = (await (await fetch(`/v1/responses/${id}`)).json()) as Json;
  return { answer: answered.status, error: body.error ?? null, stored };
}

/** What the origin's storage holds, in bytes. */
export async function storageUsage(): Promise<number> {
  // The service worker's precache may still be filling Cache Storage after the page is ready, and
  // it counts against the same quota: wait until the figure holds still for half a second.
  let last = -1;
  for (let i = 0; i < 40; i++) {
    const usage = (await navigator.storage.estimate()).usage ?? 0;
    if (usage === last) return usage;
    last = usage;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`storage usage still changing after 20 s (last ${last} bytes)`);
}

/** The `limit` newest stored responses, whole (intab's storage listing names them). */
export async function recentStored(limit: number): Promise<Json[]> {
  const listing = (await (await fetch(`/v1/intab/storage?limit=${limit}`)).json()) as {
    responses: { id: string }[];
  };
  return Promise.all(
    listing.responses.map(async (r) => (await (await fetch(`/v1/responses/${r.id}`)).json()) as Json),
  );
}
