/**
 * Page-side scripts: each function runs inside the app's page through `page.evaluate`, so it must be
 * self-contained (no imports, no outer variables) and return plain JSON. They use only what any web
 * page has: `fetch`, streams, and `window.OpenAI` (which the demo exposes for tests and the console).
 */

/** One HTTP exchange as the page saw it. */
export interface Exchange {
  status: number;
  contentType: string | null;
  body: unknown;
}

/** `POST /v1/responses` with a JSON body; returns status and parsed JSON. */
export async function postResponse(body: Record<string, unknown>): Promise<Exchange> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.json() };
}

/** `POST /v1/responses` with `stream: true`; returns every SSE frame as `{event, data}` (data parsed). */
export async function postStream(body: Record<string, unknown>): Promise<{
  status: number;
  contentType: string | null;
  frames: { event: string | null; data: unknown }[];
}> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await res.text();
  const frames = text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      const event =
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? null;
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      return { event, data };
    })
    // Frames without data are comments (`: keep-alive`), which SSE parsers ignore.
    .filter((frame) => frame.data !== '')
    .map(({ event, data }) => ({ event, data: JSON.parse(data) as unknown }));
  return { status: res.status, contentType: res.headers.get('content-type'), frames };
}

/** Any request; the body is parsed as JSON when the answer says it is JSON. */
export async function request(init: {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}): Promise<Exchange> {
  const res = await fetch(init.path, {
    method: init.method,
    headers: init.contentType ? { 'content-type': init.contentType } : {},
    body: init.body,
  });
  const contentType = res.headers.get('content-type');
  const text = await res.text();
  return { status: res.status, contentType, body: contentType?.includes('json') ? JSON.parse(text) : text };
}

/**
 * Starts a stream, reads until `deltas` text deltas have arrived, aborts the fetch, then polls
 * `GET /v1/responses/{id}` (bounded) until the stored response leaves `in_progress`.
 */
export async function abortStreamMidway(args: { input: string; deltas: number; pollMs: number }): Promise<{
  id: string;
  deltasSeen: number;
  abortError: string | null;
  polls: number;
  stored: { status: number; body: unknown };
}> {
  const controller = new AbortController();
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', input: args.input, stream: true }),
    signal: controller.signal,
  });
  if (!res.body) throw new Error(`no body (HTTP ${res.status})`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let id = '';
  let deltasSeen = 0;
  while (deltasSeen < args.deltas) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the stream ended before it was aborted');
    buffer += value;
    const frames = buffer.split('\n\n');
    buffer = frames.pop() ?? '';
    for (const frame of frames) {
      if (!frame.includes('data:')) continue;
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      const event = JSON.parse(data) as { type: string; response?: { id: string } };
      if (event.type === 'response.created' && event.response) id = event.response.id;
      if (event.type === 'response.output_text.delta') deltasSeen++;
    }
  }
  controller.abort();
  let abortError: string | null = null;
  await reader.read().catch((err: unknown) => {
    abortError = err instanceof Error ? err.name : String(err);
  });

  const end = Date.now() + args.pollMs;
  let polls = 0;
  for (;;) {
    polls++;
    const got = await fetch(`/v1/responses/${id}`);
    const body = (await got.json()) as { status?: string };
    if ((got.status === 200 && body.status !== 'in_progress') || Date.now() > end) {
      return { id, deltasSeen, abortError, polls, stored: { status: got.status, body } };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts a non-streaming `POST /v1/responses`, aborts the fetch after `abortAfterMs`, finds the
 * response in intab's storage listing (the one still running), then polls it (bounded) until it
 * leaves `in_progress`.
 */
export async function abortJsonMidway(args: {
  input: string;
  abortAfterMs: number;
  pollMs: number;
}): Promise<{
  abortError: string | null;
  id: string | null;
  status: string | null;
  output: unknown;
  msAfterAbort: number;
}> {
  const controller = new AbortController();
  const answer = fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', input: args.input }),
    signal: controller.signal,
  }).then(
    () => null,
    (err: unknown) => (err instanceof Error ? err.name : String(err)),
  );
  await new Promise((r) => setTimeout(r, args.abortAfterMs));
  controller.abort();
  const aborted = performance.now();
  const abortError = await answer;
  const listing = (await (await fetch('/v1/intab/storage?limit=100')).json()) as {
    responses: { id: string; status: string }[];
  };
  const id = listing.responses.find((r) => r.status === 'in_progress')?.id ?? null;
  if (!id) return { abortError, id, status: null, output: null, msAfterAbort: 0 };
  const end = Date.now() + args.pollMs;
  for (;;) {
    const body = (await (await fetch(`/v1/responses/${id}`)).json()) as { status: string; output: unknown };
    if (body.status !== 'in_progress' || Date.now() > end) {
      return {
        abortError,
        id,
        status: body.status,
        output: body.output,
        msAfterAbort: Math.round(performance.now() - aborted),
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The `openai` SDK from the page: `responses.create`, then `responses.stream(...).finalResponse()`. */
export async function useOpenAiSdk(
  input: string,
): Promise<{ created: unknown; streamed: unknown; events: unknown[] }> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
  });
  const created = await client.responses.create({ model: 'scripted', input });
  const events: unknown[] = [];
  const stream = client.responses.stream({ model: 'scripted', input });
  stream.on('event', (e) => events.push(e));
  const streamed = await stream.finalResponse();
  return { created, streamed, events };
}
