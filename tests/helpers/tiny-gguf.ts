/**
 * The smallest GGUF the wllama engine reads: a header only (llama, the Llama 3 chat template, a
 * two-token vocabulary), for tests that run the engine over a fake `Wllama`.
 */
import { LLAMA3_CHAT_TEMPLATE } from '../../scripts/build-test-gguf.mjs';

/**
 * @example
 * new WllamaEngine({ models: [{ id: 'm', files: [tinyGguf()] }], createWllama });
 */
export function tinyGguf(): Blob {
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
  const kvs: Array<[string, string | string[]]> = [
    ['general.architecture', 'llama'],
    ['tokenizer.ggml.model', 'gpt2'],
    ['tokenizer.chat_template', LLAMA3_CHAT_TEMPLATE],
    ['tokenizer.ggml.tokens', ['a', 'Ġb']],
  ];
  u32(0x46554747);
  u32(3);
  u64(0);
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
  return new Blob([Uint8Array.from(bytes)]);
}
