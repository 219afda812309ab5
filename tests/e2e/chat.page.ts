/**
 * Page-side scripts for Chat Completions and embeddings: each runs inside the app's page through
 * `page.evaluate`, so it is self-contained and returns plain JSON. They use `fetch` and the demo's
 * `window.OpenAI`, as any web app would.
 */

/** `POST /v1/chat/completions` or `/v1/embeddings` with a JSON body; status, content type, parsed JSON. */
export async function postJson(args: { path: string; body: Record<string, unknown> }): Promise<{
  status: number;
  contentType: string | null;
  body: unknown;
}> {
  const res = await fetch(args.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args.body),
  });
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.json() };
}

/** A streamed chat completion, read frame by frame: each frame's raw text, as the wire carried it. */
export async function postChatStream(body: Record<string, unknown>): Promise<{
  status: number;
  contentType: string | null;
  frames: string[];
  reads: number;
}> {
  const res = await fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  if (!res.body) throw new Error(`no body (HTTP ${res.status})`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let reads = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    reads++;
    text += value;
  }
  const frames = text.split('\n\n').filter((f) => f !== '');
  return { status: res.status, contentType: res.headers.get('content-type'), frames, reads };
}

/**
 * The `openai` SDK in the page: `chat.completions.create` (JSON and streamed), the `stream()`
 * helper, and `embeddings.create` both as the SDK asks by default (base64, decoded with `atob` in a
 * browser) and as floats.
 */
export async function useChatSdk(input: string): Promise<{
  created: unknown;
  streamedText: string;
  chunkCount: number;
  helperDeltas: string[];
  helperFinal: unknown;
  embeddingDefault: number[];
  embeddingFloat: number[];
  embeddingUsage: unknown;
}> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
  });
  const messages = [{ role: 'user' as const, content: input }];
  const created = await client.chat.completions.create({ model: 'scripted', messages });
  const stream = await client.chat.completions.create({
    model: 'scripted',
    messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  let streamedText = '';
  let chunkCount = 0;
  for await (const chunk of stream) {
    chunkCount++;
    streamedText += chunk.choices[0]?.delta.content ?? '';
  }
  const helperDeltas: string[] = [];
  const helper = client.chat.completions.stream({ model: 'scripted', messages });
  helper.on('content', (delta) => helperDeltas.push(delta));
  const helperFinal = await helper.finalChatCompletion();
  const byDefault = await client.embeddings.create({ model: 'scripted', input });
  const asFloat = await client.embeddings.create({ model: 'scripted', input, encoding_format: 'float' });
  return {
    created,
    streamedText,
    chunkCount,
    helperDeltas,
    helperFinal,
    embeddingDefault: byDefault.data[0]?.embedding ?? [],
    embeddingFloat: asFloat.data[0]?.embedding ?? [],
    embeddingUsage: byDefault.usage,
  };
}
