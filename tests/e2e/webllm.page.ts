/**
 * Page-side scripts for web-llm models in Chromium, run on tests/e2e/pages/options.html (which
 * exposes `window.intab` and `window.OpenAI`). Self-contained, see api.page.ts.
 */

/** An OpenAI error as the page saw it, with how long the answer took. */
export interface SeenError {
  status: number | null;
  type: string | null;
  code: string | null;
  param: string | null;
  message: string;
  ms: number;
}

/** The model ids `GET /v1/models` listed right after `intab.ready` resolved. */
export async function modelsAtReady(): Promise<string[]> {
  const w = window as unknown as { firstModels: Promise<{ data: { id: string }[] }> };
  return (await w.firstModels).data.map((m) => m.id);
}

/** `await intab.ready`, then `intab.loadModel(model)` at once: the error it rejects with, if any. */
export async function loadRightAfterReady(model: string): Promise<SeenError | null> {
  const w = window as unknown as {
    intab: { ready: Promise<void>; loadModel(id: string): Promise<void> };
  };
  await w.intab.ready;
  const started = performance.now();
  try {
    await w.intab.loadModel(model);
    return null;
  } catch (err) {
    const e = err as Partial<SeenError>;
    return {
      status: e.status ?? null,
      type: e.type ?? null,
      code: e.code ?? null,
      param: e.param ?? null,
      message: String(e.message),
      ms: Math.round(performance.now() - started),
    };
  }
}

/** `POST /v1/responses` without streaming; the error body of a non-200 answer. */
export async function jsonError(model: string): Promise<SeenError & { body: unknown }> {
  const started = performance.now();
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'hi' }),
  });
  const body = (await res.json()) as { error?: Omit<SeenError, 'status' | 'ms'> };
  return {
    status: res.status,
    type: body.error?.type ?? null,
    code: body.error?.code ?? null,
    param: body.error?.param ?? null,
    message: body.error?.message ?? '',
    ms: Math.round(performance.now() - started),
    body,
  };
}

/**
 * A stream through the openai SDK (which must parse whatever intab sends, progress comments
 * included): the event types and the final response's status and error.
 */
export async function sdkStream(model: string): Promise<{
  types: string[];
  id: string;
  status: string;
  error: { code: string; message: string } | null;
  ms: number;
}> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
  });
  const started = performance.now();
  const stream = client.responses.stream({ model, input: 'hi' });
  const types: string[] = [];
  stream.on('event', (e) => types.push(e.type));
  const final = await stream.finalResponse();
  return {
    types,
    id: final.id,
    status: final.status ?? '',
    error: final.error ?? null,
    ms: Math.round(performance.now() - started),
  };
}

/** The stored responses still `queued` or `in_progress`, from intab's storage listing. */
export async function unfinishedResponses(): Promise<{ id: string; status: string }[]> {
  const res = await fetch('/v1/intab/storage?limit=100');
  const body = (await res.json()) as { responses: { id: string; status: string }[] };
  return body.responses.filter((r) => r.status === 'queued' || r.status === 'in_progress');
}
