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
  return tokenIdsWhere(tokens, model, (bytes) => !isValidUtf8(bytes));
}

/**
 * Ids of the tokens whose raw bytes `bad` refuses. SentencePiece vocabularies (`llama`, `gemma`,
 * `gemma4`) hold raw bytes only as byte tokens `<0xNN>` (every other piece is valid text); byte-level
 * BPE vocabularies write every token in GPT-2's byte table (added tokens, written as plain text, are
 * left alone).
 */
function tokenIdsWhere(
  tokens: readonly string[],
  model: string | undefined,
  bad: (bytes: Uint8Array) => boolean,
): number[] {
  const sentencePiece = model === 'llama' || model === 'gemma' || model === 'gemma4';
  const out: number[] = [];
  for (let id = 0; id < tokens.length; id++) {
    const token = tokens[id] as string;
    let bytes: Uint8Array | null;
    if (sentencePiece) {
      const byte = /^<0x([0-9A-Fa-f]{2})>$/.exec(token);
      bytes = byte ? Uint8Array.of(Number.parseInt(byte[1] as string, 16)) : null;
    } else bytes = byteLevelBytes(token);
    if (bytes && bad(bytes)) out.push(id);
  }
  return out;
}

/**
 * The valid second bytes after each lead byte (RFC 3629): E0 and F0 exclude overlong forms, ED the
 * UTF-16 surrogates, F4 code points past U+10FFFF. Every other lead takes any continuation byte.
 */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** Bytes a sequence starting with `lead` takes in all, or 0 when `lead` can start none (C0, C1, F5–FF, continuations). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Leads whose valid second bytes are a strict subset of the continuation bytes. */
const NARROW_LEADS = new Set([0xe0, 0xed, 0xf0, 0xf4]);

/**
 * Whether a token's bytes may be sampled whatever came before: at most three continuation bytes
 * (the end of a character an earlier token began), then whole valid characters, then at most the
 * valid start of one more. llama.cpp's grammar then holds the rest: it decodes UTF-8 across tokens
 * and lets a started character go on only with the continuation bytes it needs. What it does not
 * check is what those bytes mean, so a token ending in a lone E0, ED, F0 or F4 is unsafe too: the
 * next token's first byte could make an overlong form, a surrogate or a code point past U+10FFFF,
 * which the grammar accepts and llama.cpp's JSON writer then refuses, killing the instance.
 */
export function isSafeUtf8Piece(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length && i < 3 && ((bytes[i] as number) & 0xc0) === 0x80) i++;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    const need = sequenceLength(lead);
    if (need === 0) return false;
    const have = Math.min(need, bytes.length - i);
    if (have >= 2) {
      const [lo, hi] = secondByteRange(lead);
      const second = bytes[i + 1] as number;
      if (second < lo || second > hi) return false;
    }
    for (let k = 2; k < have; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return false;
    // A started character at the end: safe unless its second byte is still to come and restricted.
    if (have < need) return !(have === 1 && NARROW_LEADS.has(lead));
    i += need;
  }
  return true;
}

/**
 * Ids of the tokens never to sample, logprobs or not: those {@link isSafeUtf8Piece} refuses, e.g.
 * the byte tokens 0xC0, 0xC1 and 0xF5–0xFF, which no valid UTF-8 holds. llama.cpp writes each
 * streamed piece of text into JSON with nlohmann's strict UTF-8 check (wllama's `get_result`, not
 * llama.cpp's own server, which replaces bad bytes), and its check of the text only holds back an
 * unfinished last character, so one such byte reaches the writer and aborts the instance
 * (`[json.exception.type_error.316] invalid UTF-8 byte … 0xF6`).
 *
 * @example
 * unsafeUtf8Tokens(['a', 'ö', 'à'], 'gpt2'); // [1, 2]: 'ö' is the byte 0xF6, 'à' a lone 0xE0
 */
export function unsafeUtf8Tokens(tokens: readonly string[], model: string | undefined): number[] {
  return tokenIdsWhere(tokens, model, (bytes) => !isSafeUtf8Piece(bytes));
}
