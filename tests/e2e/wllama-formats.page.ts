/**
 * Page-side scripts for tests/e2e/wllama-formats.test.ts, run on tests/e2e/pages/options.html.
 * Self-contained like every page script: each runs in the page through `page.evaluate`.
 */

/**
 * Registers, under `id`, the GGUF at `url` with its `tokenizer.chat_template` replaced by
 * `template` (a model family's published template on the test weights): the new text is padded
 * with a Jinja comment so the header grows by a multiple of 32 bytes, which keeps the tensor data
 * at the same aligned offsets. Answers the model's listing.
 */
export async function addWithTemplate(args: {
  id: string;
  url: string;
  template: string;
}): Promise<Record<string, unknown>> {
  const bytes = new Uint8Array(await (await fetch(args.url)).arrayBuffer());
  const enc = new TextEncoder();
  const key = enc.encode('tokenizer.chat_template');
  let at = -1;
  for (let i = 0; i + key.length < bytes.length && at < 0; i++) {
    let j = 0;
    while (j < key.length && bytes[i + j] === key[j]) j++;
    if (j === key.length) at = i + key.length;
  }
  if (at < 0) throw new Error('no chat template in the GGUF');
  const view = new DataView(bytes.buffer);
  // After the key: its value type (u32, 8 = string), then the string's u64 length and its bytes.
  const oldLength = Number(view.getBigUint64(at + 4, true));
  const start = at + 12;
  let text = enc.encode(args.template);
  const pad = (32 - ((text.length - oldLength) % 32) + 32) % 32;
  if (pad > 0) {
    const filler = pad >= 4 ? `{#${'.'.repeat(pad - 4)}#}` : null;
    if (!filler) text = enc.encode(`${args.template}{#${'.'.repeat(pad + 28)}#}`);
    else text = enc.encode(`${args.template}${filler}`);
  }
  const out = new Uint8Array(bytes.length - oldLength + text.length);
  out.set(bytes.subarray(0, start), 0);
  new DataView(out.buffer).setBigUint64(at + 4, BigInt(text.length), true);
  out.set(text, start);
  out.set(bytes.subarray(start + oldLength), start + text.length);
  const file = new File([out], `${args.id}.gguf`, { type: 'application/octet-stream' });
  const w = window as unknown as { intab: { addModel(spec: unknown): Promise<Record<string, unknown>> } };
  return w.intab.addModel({ id: args.id, files: [file], label: args.id });
}

/** `POST /v1/responses` with `body`: the status, the usage and the error. */
export async function respond(body: Record<string, unknown>): Promise<{
  http: number;
  inputTokens: number | null;
  error: string | null;
}> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as {
    usage?: { input_tokens: number };
    error?: { message?: string };
  };
  return {
    http: res.status,
    inputTokens: json.usage?.input_tokens ?? null,
    error: json.error?.message ?? null,
  };
}
