/**
 * Page-side scripts for the engine's bounds (issue 15, class 17), run on tests/e2e/pages/options.html.
 * Self-contained, see api.page.ts.
 */

/** One answer as the page saw it: status, error code, `retry-after`, and when it came. */
export interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
  ms: number;
}

/**
 * Sends a first request for `model` (whose load is slow), then, while it waits, a second one: the
 * queue of one is full, so the second is refused. Then the first's answer, and a third request's.
 */
export async function overflowQueue(
  model: string,
): Promise<{ first: Answer; second: Answer; third: Answer }> {
  const started = performance.now();
  const send = async (): Promise<Answer> => {
    const res = await fetch('/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'hi' }),
    });
    const body = (await res.json()) as { error?: { code: string | null } };
    return {
      status: res.status,
      code: body.error?.code ?? null,
      retryAfter: res.headers.get('retry-after'),
      ms: Math.round(performance.now() - started),
    };
  };
  const first = send();
  await new Promise((r) => setTimeout(r, 500));
  const second = await send();
  const third = send();
  return { first: await first, second, third: await third };
}

/** `POST /v1/responses` for `model`, not streamed: the answer and when it came. */
export async function answerOf(model: string): Promise<Answer> {
  const started = performance.now();
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'hi' }),
  });
  const body = (await res.json()) as { error?: { code: string | null } };
  return {
    status: res.status,
    code: body.error?.code ?? null,
    retryAfter: res.headers.get('retry-after'),
    ms: Math.round(performance.now() - started),
  };
}
