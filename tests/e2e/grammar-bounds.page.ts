/**
 * Page-side scripts for the grammar bounds of the llama.cpp engine (issue 27), run on
 * tests/e2e/pages/options.html. Self-contained, see api.page.ts: each runs in the page through
 * `page.evaluate` and returns plain JSON.
 */

/** One `POST /v1/responses` as the page saw it. */
export interface Answer {
  status: number;
  code: string | null;
  param: string | null;
  message: string | null;
  /** The response's own status (`completed`, `incomplete`…) when it was a 200. */
  state: string | null;
  ms: number;
}

/** `POST /v1/responses` with `body`, not streamed. */
export async function respond(body: Record<string, unknown>): Promise<Answer> {
  const started = performance.now();
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as {
    status?: string;
    error?: { code: string | null; param: string | null; message: string };
  };
  return {
    status: res.status,
    code: json.error?.code ?? null,
    param: json.error?.param ?? null,
    message: json.error?.message ?? null,
    state: json.status ?? null,
    ms: Math.round(performance.now() - started),
  };
}

/** Whether `model` is in the weight cache, by `GET /v1/models`. */
export async function isCached(model: string): Promise<boolean | null> {
  const list = (await (await fetch('/v1/models')).json()) as { data: { id: string; cached?: boolean }[] };
  return list.data.find((m) => m.id === model)?.cached ?? null;
}
