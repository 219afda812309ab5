/**
 * A fake OpenAI-compatible server as a `fetch` function, for the remote engine's unit tests: it
 * records each call and answers what the test scripts (SSE chunks, a JSON body, a status).
 *
 * @example
 * const fake = fakeChatServer({ chunks: [{ choices: [{ delta: { content: 'hi' }, finish_reason: 'stop' }] }] });
 * const engine = new RemoteEngine({ servers: [{ baseURL: fake.baseURL, models: ['m'] }], fetch: fake.fetch });
 */
export interface FakeCall {
  url: string;
  init: RequestInit;
  body: Record<string, unknown> | null;
}

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** SSE chunks (objects are JSON-encoded, strings sent as the data line as is); `[DONE]` follows. */
  chunks?: (object | string)[];
  /** A whole body instead of SSE. */
  body?: string;
  /** Throw this from fetch (an unreachable server). */
  throws?: unknown;
  /** Never answer (until the request's signal aborts). */
  hang?: boolean;
  /** End the SSE body without `[DONE]`. */
  noDone?: boolean;
}

export const FAKE_BASE = 'http://llm.test/v1';

export function fakeChatServer(answer: FakeAnswer | ((call: FakeCall) => FakeAnswer)) {
  const calls: FakeCall[] = [];
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : null;
    const call = { url, init, body };
    calls.push(call);
    const a = typeof answer === 'function' ? answer(call) : answer;
    if (a.throws) throw a.throws;
    if (a.hang)
      return new Promise((_, reject) =>
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    if (a.body !== undefined)
      return new Response(a.body, {
        status: a.status ?? 200,
        headers: { 'content-type': 'application/json', ...a.headers },
      });
    const frames = (a.chunks ?? []).map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`);
    if (!a.noDone) frames.push('data: [DONE]\n\n');
    const enc = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      pull(ctl) {
        const next = frames.shift();
        if (next === undefined) ctl.close();
        else ctl.enqueue(enc.encode(next));
      },
    });
    return new Response(stream, {
      status: a.status ?? 200,
      headers: { 'content-type': 'text/event-stream', ...a.headers },
    });
  };
  return { fetch, calls, baseURL: FAKE_BASE };
}
