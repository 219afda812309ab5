/**
 * Page-side scripts for the engine's bounds (issue 15, class 17), run on tests/e2e/pages/options.html.
 * Self-contained, see api.page.ts.
 */

/** One answer as the page saw it: status, error code, `retry-after`, when it came, and in which order. */
export interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
  ms: number;
  /** 1 for the first answer the page got in {@link sendFirst}/{@link overflowQueue}, 2 for the next... */
  order: number;
}

/** What {@link sendFirst} leaves for {@link overflowQueue}. */
interface Overflow {
  started: number;
  answered: number;
  first: Promise<Answer>;
  /** Sends one request for the model; its answer, timed from `started`, in the order it came. */
  send: () => Promise<Answer>;
}

/**
 * Sends a first request for `model` (whose load is slow) and leaves its answer pending, for
 * {@link overflowQueue}; the test waits until the model's server sees the load begin.
 */
export async function sendFirst(model: string): Promise<void> {
  const state = { started: performance.now(), answered: 0 } as Overflow;
  (window as unknown as { overflow: Overflow }).overflow = state;
  state.send = async (): Promise<Answer> => {
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
      ms: Math.round(performance.now() - state.started),
      order: ++state.answered,
    };
  };
  state.first = state.send();
}

/**
 * While the first request (from {@link sendFirst}) waits for its load, a second one for its model:
 * the queue of one is full, so the second is refused. Then a third, and the first's answer.
 */
export async function overflowQueue(): Promise<{ first: Answer; second: Answer; third: Answer }> {
  const state = (window as unknown as { overflow: Overflow }).overflow;
  const second = await state.send();
  const third = state.send();
  return { first: await state.first, second, third: await third };
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
    order: 1,
  };
}
