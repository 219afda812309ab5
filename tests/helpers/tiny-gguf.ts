/**
 * The smallest GGUF the wllama engine reads: a header only (llama, the Llama 3 chat template, a
 * small vocabulary), for tests that run the engine over a fake `Wllama`, and the header writer
 * under it for tests of the header reader.
 */
import { LLAMA3_CHAT_TEMPLATE } from '../../scripts/build-test-gguf.mjs';

/** One metadata entry: a string (GGUF type 8) or an array of strings (type 9). */
export type GgufEntry = [key: string, value: string | string[]];

/**
 * The bytes of a GGUF v3 file with these metadata entries, in order, and these tensors (none by
 * default: a header only).
 * @example
 * readGgufHeader(new Blob([ggufBytes([['general.name', 'x']])]));
 */
export function ggufBytes(kvs: GgufEntry[], tensors: GgufTensor[] = []): Uint8Array<ArrayBuffer> {
  const enc = new TextEncoder();
  const bytes: number[] = [];
  const u32 = (v: number) => bytes.push(v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >>> 24) & 255);
  const u64 = (v: number) => {
    u32(v);
    u32(0);
  };
  const str = (s: string) => {
    const b = enc.encode(s);
    u64(b.length);
    bytes.push(...b);
  };
  u32(0x46554747);
  u32(3);
  u64(tensors.length);
  u64(kvs.length);
  for (const [key, value] of kvs) {
    str(key);
    if (Array.isArray(value)) {
      u32(9);
      u32(8);
      u64(value.length);
      for (const v of value) str(v);
    } else {
      u32(8);
      str(value);
    }
  }
  if (tensors.length === 0) return Uint8Array.from(bytes);
  // The tensor list, then each tensor's data (zeros) at its 32-byte aligned offset, as llama.cpp's
  // writer lays them out.
  const align = (n: number) => Math.ceil(n / 32) * 32;
  let offset = 0;
  for (const t of tensors) {
    str(t.name);
    u32(t.dims.length);
    for (const d of t.dims) u64(d);
    u32(t.type);
    u64(offset);
    offset = align(offset + t.bytes);
  }
  const data = align(bytes.length);
  const out = new Uint8Array(data + offset);
  out.set(bytes);
  return out;
}

/** One tensor of {@link ggufBytes}: its ggml type number and shape, and the bytes its data takes. */
export interface GgufTensor {
  name: string;
  dims: number[];
  type: number;
  bytes: number;
}

/**
 * A header-only llama GGUF with the Llama 3 template; `tokens` is its vocabulary (default two
 * tokens), `extra` more metadata after it.
 * @example
 * new WllamaEngine({ models: [{ id: 'm', files: [tinyGguf()] }], createWllama });
 */
export function tinyGguf(opts: { tokens?: string[]; extra?: GgufEntry[] } = {}): Blob {
  return new Blob([
    ggufBytes([
      ['general.architecture', 'llama'],
      ['tokenizer.ggml.model', 'gpt2'],
      ['tokenizer.chat_template', LLAMA3_CHAT_TEMPLATE],
      ['tokenizer.ggml.tokens', opts.tokens ?? ['a', 'Ġb']],
      ...(opts.extra ?? []),
    ]),
  ]);
}
