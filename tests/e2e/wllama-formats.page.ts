/**
 * Page-side scripts for tests/e2e/wllama-formats.test.ts (and the other wllama template tests), run
 * on tests/e2e/pages/options.html.
 * Self-contained like every page script: each runs in the page through `page.evaluate`.
 */

/**
 * Registers, under `id`, the GGUF at `url` with its `tokenizer.chat_template` replaced by
 * `template` (a model family's published template on the test weights). With `toolUse`, laid out
 * as llama.cpp's converter writes a NousResearch Hermes repository: `template` is the repository's
 * `default`, and `tokenizer.chat_template.tool_use` = `toolUse` is inserted right after it (the KV
 * count raised by one). Each new text is padded with a Jinja comment so the header grows by a
 * multiple of 32 bytes, which keeps the tensor data at the same aligned offsets. Answers the
 * model's listing.
 */
export async function addWithTemplate(args: {
  id: string;
  url: string;
  template: string;
  toolUse?: string;
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
  /** `text`, padded with a comment so that `fixed + its length` is a multiple of 32. */
  const padded = (text: string, fixed: number) => {
    let out = enc.encode(text);
    const pad = (32 - ((fixed + out.length) % 32)) % 32;
    if (pad > 0) out = enc.encode(`${text}{#${'.'.repeat(pad >= 4 ? pad - 4 : pad + 28)}#}`);
    return out;
  };
  const chat = padded(args.template, -oldLength);
  let entry = new Uint8Array(0);
  if (args.toolUse !== undefined) {
    const toolKey = enc.encode('tokenizer.chat_template.tool_use');
    // The new entry: key length (u64), key, type (u32, 8 = string), text length (u64), text.
    const tool = padded(args.toolUse, 8 + toolKey.length + 4 + 8);
    entry = new Uint8Array(8 + toolKey.length + 4 + 8 + tool.length);
    const ev = new DataView(entry.buffer);
    ev.setBigUint64(0, BigInt(toolKey.length), true);
    entry.set(toolKey, 8);
    ev.setUint32(8 + toolKey.length, 8, true);
    ev.setBigUint64(12 + toolKey.length, BigInt(tool.length), true);
    entry.set(tool, 20 + toolKey.length);
  }
  const out = new Uint8Array(bytes.length - oldLength + chat.length + entry.length);
  out.set(bytes.subarray(0, start), 0);
  const ov = new DataView(out.buffer);
  ov.setBigUint64(at + 4, BigInt(chat.length), true);
  // The KV count, after the magic, the version and the tensor count.
  if (args.toolUse !== undefined) ov.setBigUint64(16, view.getBigUint64(16, true) + 1n, true);
  out.set(chat, start);
  out.set(entry, start + chat.length);
  out.set(bytes.subarray(start + oldLength), start + chat.length + entry.length);
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
