/**
 * Page-side scripts for stored state (background mode, resume, cancel, conversations). Each runs in
 * the app's page through `page.evaluate`: self-contained, plain JSON in and out.
 */

type Json = Record<string, unknown>;

/** A JSON request to the runtime; returns status and parsed body. */
export async function call(args: {
  method: string;
  path: string;
  body?: unknown;
}): Promise<{ status: number; body: Json }> {
  const res = await fetch(args.path, {
    method: args.method,
    headers: { 'content-type': 'application/json' },
    body: args.body === undefined ? undefined : JSON.stringify(args.body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Polls `GET /v1/responses/{id}` until its status is one of `until` (bounded by `ms`). */
export async function pollStatus(args: { id: string; until: string[]; ms: number }): Promise<Json> {
  const end = Date.now() + args.ms;
  for (;;) {
    const body = (await (await fetch(`/v1/responses/${args.id}`)).json()) as Json;
    if (args.until.includes(String(body.status)) || Date.now() > end) return body;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Starts a background stream, reads `first` events and disconnects; then resumes with
 * `starting_after` = the last sequence number seen, and finally replays the whole log.
 */
export async function disconnectAndResume(args: {
  input: string;
  first: number;
}): Promise<{ head: Json[]; tail: Json[]; full: Json[] }> {
  // Defined inside: page.evaluate ships this function alone, without its module.
  /** Reads SSE frames from a response body; stops after `max` events when given (then aborts). */
  const readEvents = async (res: Response, max: number, abort?: AbortController): Promise<Json[]> => {
    if (!res.body) throw new Error(`no body (HTTP ${res.status})`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const events: Json[] = [];
    let buffer = '';
    while (events.length < max) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      const frames = buffer.split('\n\n');
      buffer = frames.pop() ?? '';
      for (const frame of frames) {
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        if (data && events.length < max) events.push(JSON.parse(data) as Json);
      }
    }
    if (abort) {
      abort.abort();
      await reader.read().catch(() => undefined);
    } else {
      await reader.cancel().catch(() => undefined);
    }
    return events;
  };
  const abort = new AbortController();
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', input: args.input, background: true, stream: true }),
    signal: abort.signal,
  });
  const head = await readEvents(res, args.first, abort);
  const id = String((head[0]?.response as { id?: string } | undefined)?.id);
  const last = head.at(-1)?.sequence_number as number;
  const tail = await readEvents(
    await fetch(`/v1/responses/${id}?stream=true&starting_after=${last}`),
    Number.POSITIVE_INFINITY,
  );
  const full = await readEvents(await fetch(`/v1/responses/${id}?stream=true`), Number.POSITIVE_INFINITY);
  return { head, tail, full };
}

/** The text of a response object's output messages. */
export function outputText(response: Json): string {
  const out = (response.output ?? []) as { type: string; content?: { type: string; text?: string }[] }[];
  return out
    .filter((o) => o.type === 'message')
    .flatMap((o) => o.content ?? [])
    .map((c) => c.text ?? '')
    .join('');
}
