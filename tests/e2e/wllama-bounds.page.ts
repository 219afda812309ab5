/**
 * Page-side scripts for the llama.cpp engine's bounds in Chromium (tests/e2e/wllama-bounds.test.ts),
 * run on tests/e2e/pages/options.html. Self-contained like every page script: each function runs in
 * the page through `page.evaluate` and returns plain JSON.
 */

/** One request's outcome as the page saw it: the HTTP status and the completion's or error's fields. */
export interface Outcome {
  seed: number | null;
  http: number;
  /** The choice's `finish_reason` (`stop`, `length`), or null for an error. */
  finish: string | null;
  /** The error's `code`, or null. */
  code: string | null;
  message: string | null;
  text: string;
  ms: number;
}

/**
 * `POST /v1/chat/completions` (the route with `seed`) with `body` once per seed, one after the other
 * (one engine, one job at a time): each outcome, in order.
 */
export async function createPerSeed(args: {
  body: Record<string, unknown>;
  seeds: number[];
  /** `max_completion_tokens` per request, taken in turn; default: the body's. */
  maxTokens?: number[];
}): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const [i, seed] of args.seeds.entries()) {
    const cap = args.maxTokens?.[i % args.maxTokens.length];
    const started = performance.now();
    const res = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...args.body, seed, ...(cap ? { max_completion_tokens: cap } : {}) }),
    });
    const json = (await res.json()) as {
      error?: { code?: string; message?: string };
      choices?: { finish_reason?: string; message?: { content?: string | null } }[];
    };
    const choice = json.choices?.[0];
    out.push({
      seed,
      http: res.status,
      finish: choice?.finish_reason ?? null,
      code: json.error?.code ?? null,
      message: json.error?.message ?? null,
      text: choice?.message?.content ?? '',
      ms: Math.round(performance.now() - started),
    });
  }
  return out;
}

/** `POST` of `body` to `path` (JSON), answered with its status, error code and message. */
export async function post(args: { path: string; body: Record<string, unknown> }): Promise<{
  http: number;
  code: string | null;
  message: string | null;
  retryAfter: string | null;
  json: Record<string, unknown>;
}> {
  const res = await fetch(args.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args.body),
  });
  const json = (await res.json()) as Record<string, unknown> & {
    error?: { code?: string; message?: string };
  };
  return {
    http: res.status,
    code: json.error?.code ?? null,
    message: json.error?.message ?? null,
    retryAfter: res.headers.get('retry-after'),
    json,
  };
}
