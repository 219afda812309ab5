/**
 * The tokens of a vocabulary whose text is not valid UTF-8 on its own: byte-level BPE pieces that
 * hold part of a multi-byte character, and SentencePiece byte tokens `<0x80>`…`<0xFF>`. llama.cpp
 * writes each token's text into the JSON of its logprobs, and one such token there aborts the whole
 * wasm instance (`json.exception.type_error.316`), so they are kept from being sampled when
 * logprobs are asked for.
 */

/** GPT-2's byte ↔ printable-character table, which byte-level BPE vocabularies are written in. */
const UNICODE_TO_BYTE: ReadonlyMap<string, number> = (() => {
  const bytes: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) bytes.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bytes.push(b);
  for (let b = 0xae; b <= 0xff; b++) bytes.push(b);
  const chars = [...bytes];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bytes.includes(b)) {
      bytes.push(b);
      chars.push(256 + n);
      n++;
    }
  }
  return new Map(bytes.map((b, i) => [String.fromCodePoint(chars[i] as number), b]));
})();

/**
 * The raw bytes of a byte-level BPE token, or null when it is not written in GPT-2's table (added
 * tokens such as `<|eot_id|>` are stored as plain text).
 *
 * @example
 * byteLevelBytes('Ġhi'); // Uint8Array [32, 104, 105]
 */
export function byteLevelBytes(token: string): Uint8Array | null {
  const out: number[] = [];
  for (const ch of token) {
    const b = UNICODE_TO_BYTE.get(ch);
    if (b === undefined) return null;
    out.push(b);
  }
  return Uint8Array.from(out);
}

const strict = new TextDecoder('utf-8', { fatal: true });

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ids of the tokens whose text is not valid UTF-8 by itself. `model` is `tokenizer.ggml.model`:
 * `gpt2` (byte-level BPE: Llama 3, Qwen…) or `llama` (SentencePiece: Llama 2, Mistral, Gemma…).
 *
 * @example
 * invalidUtf8Tokens(['a', 'Ã', 'Ġb'], 'gpt2'); // [1]: 'Ã' is the lone byte 0xC3
 */
export function invalidUtf8Tokens(tokens: readonly string[], model: string | undefined): number[] {
  const out: number[] = [];
  for (let id = 0; id < tokens.length; id++) {
    const token = tokens[id] as string;
    if (model === 'llama' || model === 'gemma' || model === 'gemma4') {
      const byte = /^<0x([0-9A-Fa-f]{2})>$/.exec(token);
      if (byte && Number.parseInt(byte[1] as string, 16) >= 0x80) out.push(id);
      continue;
    }
    const bytes = byteLevelBytes(token);
    if (bytes && !isValidUtf8(bytes)) out.push(id);
  }
  return out;
}
