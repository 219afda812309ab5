/**
 * Page-side scripts for the llama.cpp engine (wllama) in Chromium, run on tests/e2e/pages/options.html
 * (which exposes `window.intab` and `window.OpenAI`). Self-contained, see api.page.ts: each function
 * runs in the page through `page.evaluate` and returns plain JSON.
 */

/** An OpenAI error as the page saw it. */
export interface PageError {
  status: number | null;
  code: string | null;
  type: string | null;
  param: string | null;
  message: string;
  ms: number;
}

/** `intab.loadModel(model)` with progress: every report, in order, and how long it took. */
export async function loadWithProgress(
  model: string,
): Promise<{ reports: { progress: number; text: string }[]; ms: number; error: string | null }> {
  const w = window as unknown as {
    intab: { loadModel(id: string, cb: (p: { progress: number; text: string }) => void): Promise<void> };
  };
  const reports: { progress: number; text: string }[] = [];
  const started = performance.now();
  try {
    await w.intab.loadModel(model, (p) => reports.push({ progress: p.progress, text: p.text }));
    return { reports, ms: Math.round(performance.now() - started), error: null };
  } catch (err) {
    return { reports, ms: Math.round(performance.now() - started), error: String((err as Error).message) };
  }
}

/** `GET /v1/models` as JSON. */
export async function listModels(): Promise<
  { id: string; engine?: string; cached?: boolean; device?: string; wasm?: string; owned_by: string }[]
> {
  return (await (await fetch('/v1/models')).json()).data;
}

/**
 * `client.responses.create(body)` through the openai SDK: the response, or the error it threw, and
 * the time it took.
 */
export async function sdkCreate(
  body: Record<string, unknown>,
): Promise<{ response: Record<string, unknown> | null; error: PageError | null; ms: number }> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
  });
  const started = performance.now();
  try {
    const response = await client.responses.create(body as never);
    return {
      response: JSON.parse(JSON.stringify(response)),
      error: null,
      ms: Math.round(performance.now() - started),
    };
  } catch (err) {
    const e = err as { status?: number; code?: string; type?: string; param?: string; message?: string };
    return {
      response: null,
      error: {
        status: e.status ?? null,
        code: e.code ?? null,
        type: e.type ?? null,
        param: e.param ?? null,
        message: String(e.message),
        ms: Math.round(performance.now() - started),
      },
      ms: Math.round(performance.now() - started),
    };
  }
}

/** `client.chat.completions.create(body)` through the openai SDK (non-streaming). */
export async function sdkChat(
  body: Record<string, unknown>,
): Promise<{ completion: Record<string, unknown> | null; error: PageError | null }> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
  });
  const started = performance.now();
  try {
    const completion = await client.chat.completions.create(body as never);
    return { completion: JSON.parse(JSON.stringify(completion)), error: null };
  } catch (err) {
    const e = err as { status?: number; code?: string; type?: string; param?: string; message?: string };
    return {
      completion: null,
      error: {
        status: e.status ?? null,
        code: e.code ?? null,
        type: e.type ?? null,
        param: e.param ?? null,
        message: String(e.message),
        ms: Math.round(performance.now() - started),
      },
    };
  }
}

/**
 * A streamed response two ways at once: the raw SSE frames (for the spec check in Node) read with
 * `fetch`, and, on a second identical request, the openai SDK's stream helper (whose accumulator
 * rejects misordered events) with its final response.
 */
export async function streamBothWays(body: Record<string, unknown>): Promise<{
  status: number;
  events: { type: string; [k: string]: unknown }[];
  comments: string[];
  sdkTypes: string[];
  sdkFinal: Record<string, unknown>;
  sdkDeltas: string;
}> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await res.text();
  const events: { type: string }[] = [];
  const comments: string[] = [];
  for (const frame of text.split('\n\n')) {
    const lines = frame.split('\n').filter((l) => l !== '');
    for (const l of lines) if (l.startsWith(':')) comments.push(l);
    const data = lines
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (data) events.push(JSON.parse(data));
  }
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
  });
  const stream = client.responses.stream(body as never);
  const sdkTypes: string[] = [];
  let sdkDeltas = '';
  stream.on('event', (e) => sdkTypes.push(e.type));
  stream.on('response.output_text.delta', (e) => {
    sdkDeltas += e.delta;
  });
  const sdkFinal = await stream.finalResponse();
  return {
    status: res.status,
    events: events as { type: string }[],
    comments,
    sdkTypes,
    sdkFinal: JSON.parse(JSON.stringify(sdkFinal)),
    sdkDeltas,
  };
}

/**
 * Streams `body`, aborts the fetch after `afterDeltas` text deltas, then at once sends `next` and
 * times it: an engine still decoding the abandoned reply would hold the next request back.
 */
export async function abortThenNext({
  body,
  afterDeltas,
  next,
}: {
  body: Record<string, unknown>;
  afterDeltas: number;
  next: Record<string, unknown>;
}): Promise<{ deltasBeforeAbort: number; readError: string | null; nextStatus: number; nextMs: number }> {
  const controller = new AbortController();
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
    signal: controller.signal,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let deltas = 0;
  let readError: string | null = null;
  try {
    while (deltas < afterDeltas) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      deltas = buffer.split('event: response.output_text.delta').length - 1;
    }
    controller.abort();
    await reader.read();
  } catch (err) {
    readError = String((err as Error).name);
  }
  const started = performance.now();
  const answer = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(next),
  });
  await answer.json();
  return {
    deltasBeforeAbort: deltas,
    readError,
    nextStatus: answer.status,
    nextMs: Math.round(performance.now() - started),
  };
}

/** `client.embeddings.create` through the openai SDK. */
export async function sdkEmbed({
  model,
  input,
}: {
  model: string;
  input: string[];
}): Promise<{ vectors: number[][]; tokens: number }> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
  });
  const res = await client.embeddings.create({ model, input });
  return { vectors: res.data.map((d) => d.embedding), tokens: res.usage.prompt_tokens };
}

/** `intab.addModel` with a File made in the page from the bytes at `url` (as if the user picked it). */
export async function addPickedFile({
  id,
  url,
}: {
  id: string;
  url: string;
}): Promise<Record<string, unknown>> {
  const w = window as unknown as { intab: { addModel(spec: unknown): Promise<Record<string, unknown>> } };
  const blob = await (await fetch(url)).blob();
  const file = new File([blob], 'picked.gguf', { type: 'application/octet-stream' });
  return w.intab.addModel({ id, files: [file], label: 'picked in the page' });
}

/** `POST /v1/embeddings` with `model`: the status and error body. */
export async function embeddingsError(
  model: string,
): Promise<{ status: number; error: Record<string, unknown> }> {
  const res = await fetch('/v1/embeddings', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'hello' }),
  });
  return { status: res.status, error: (await res.json()).error };
}

/** `POST /v1/responses/input_tokens`: the count and whether intab says it is exact. */
export async function inputTokens(
  body: Record<string, unknown>,
): Promise<{ count: number; how: string | null }> {
  const res = await fetch('/v1/responses/input_tokens', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { count: (await res.json()).input_tokens, how: res.headers.get('intab-token-count') };
}
