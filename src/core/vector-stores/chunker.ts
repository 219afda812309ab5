import type { StaticFileChunkingStrategy } from 'openai/resources/vector-stores/vector-stores';
import { importLazy } from '../../common/lazy-assets';
import { pace } from '../../common/pace';

/**
 * Chunk boundaries are counted in o200k_base tokens (`gpt-tokenizer`, MIT), whatever model embeds
 * or reads the chunks: a store's chunks then never depend on the model loaded, as OpenAI's do not.
 * The tokenizer's tables are big (~2 MB), so they load on the first file, never with the page.
 */
type O200k = typeof import('gpt-tokenizer/encoding/o200k_base');
let tokenizer: Promise<O200k> | null = null;

/** o200k_base, imported once, on first use. */
export function loadTokenizer(): Promise<O200k> {
  // A failed chunk load may succeed on the next file: its kept copy is dropped, and so is the promise.
  tokenizer ??= importLazy('o200k', () => import('gpt-tokenizer/encoding/o200k_base')).catch(
    (err: unknown) => {
      tokenizer = null;
      throw err;
    },
  );
  return tokenizer;
}

/** Special-token spellings (`<|endoftext|>`) in a file are its text, never control tokens. */
export const AS_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/**
 * Tokens encoded between two chances to yield. Counted in tokens, not pieces: a piece of 250 random
 * letters is ~130 tokens and costs as much to merge, where a common word is one token looked up.
 */
const TOKENS_PER_STEP = 2048;

/**
 * The longest run of non-whitespace (or of whitespace) encoded as one: gpt-tokenizer's byte-pair
 * merge is quadratic in one pre-token piece, and a run of letters is one piece, so a 600 KB one-word
 * file held the engine ~50 s (issue 43). Longer runs are cut into pieces of this many UTF-16 units,
 * each merged on its own, so the encode is linear in the input: ~1 ms a piece at most. Real words,
 * numbers (o200k splits digits by three) and URLs (split at their punctuation) are far shorter, so
 * a text without such a run is encoded exactly as `encode(text)`.
 */
export const MAX_RUN_CHARS = 256;

/**
 * The spans `text` is encoded in: the text between runs longer than {@link MAX_RUN_CHARS} as it is,
 * and each such run cut every {@link MAX_RUN_CHARS} units, never inside a surrogate pair. One linear
 * scan, lazily: the spans come as the encode asks for them.
 *
 * @example
 * [...encodeSpans('a'.repeat(600))].map((s) => s.length) // → [256, 256, 88]
 */
export function* encodeSpans(text: string): Generator<string> {
  let from = 0; // where the text not yet yielded starts
  let runStart = 0;
  let runSpace = false;
  for (let at = 0; at <= text.length; at++) {
    const space = at < text.length && isSpace(text.charCodeAt(at));
    if (at < text.length && at > runStart && space === runSpace) continue;
    // A run of one kind ended at `at` (or the text did): cut it if it is too long.
    if (at - runStart > MAX_RUN_CHARS) {
      if (runStart > from) yield text.slice(from, runStart);
      for (let cut = runStart; cut < at; ) {
        let end = Math.min(cut + MAX_RUN_CHARS, at);
        if (end < at && isHighSurrogate(text.charCodeAt(end - 1))) end--;
        yield text.slice(cut, end);
        cut = end;
      }
      from = at;
    }
    runStart = at;
    runSpace = space;
  }
  if (from < text.length) yield text.slice(from);
}

/** `\s` as the tokenizer's split pattern reads it, fast for ASCII. */
function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(String.fromCharCode(code));
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * The o200k_base tokens of `text`, encoded piece by piece with {@link pace} between slices so a
 * megabyte of text never holds the worker's loop for long. Exactly `encode(text)`'s tokens unless
 * the text has a run longer than {@link MAX_RUN_CHARS}, which is cut (see {@link encodeSpans});
 * they decode to `text` either way.
 *
 * @example
 * await tokenize('hello world') // → [24912, 2375]
 */
export async function tokenize(text: string): Promise<number[]> {
  const { encodeGenerator } = await loadTokenizer();
  const out: number[] = [];
  let step = 0;
  for (const span of encodeSpans(text)) {
    for (const piece of encodeGenerator(span, AS_TEXT)) {
      for (const t of piece) out.push(t);
      step += piece.length;
      if (step >= TOKENS_PER_STEP) {
        step = 0;
        await pace();
      }
    }
  }
  return out;
}

/**
 * Where the chunks of `count` tokens fall: windows of `size` tokens, each starting `size - overlap`
 * after the last, the final one ending at the last token. So `count ≤ size` gives one chunk (none
 * for no tokens) and more gives `1 + ceil((count - size) / (size - overlap))`.
 *
 * @example
 * chunkRanges(250, 100, 50) // → [[0,100],[50,150],[100,200],[150,250]]
 */
export function chunkRanges(count: number, size: number, overlap: number): [number, number][] {
  const step = size - overlap;
  if (step < 1) throw new RangeError('chunk overlap must be smaller than the chunk size');
  const out: [number, number][] = [];
  for (let start = 0; start < count; start += step) {
    const end = Math.min(start + size, count);
    out.push([start, end]);
    if (end === count) break;
  }
  return out;
}

/** One chunk: its text (what results show) and its tokens (what its embedding windows cut). */
export interface Chunk {
  text: string;
  tokens: number[];
}

/**
 * Cuts `text` into chunks of `strategy`'s size and overlap, in o200k tokens. A cut can fall inside a
 * character that spans two byte-level tokens; the decoder then writes U+FFFD there, in that chunk only.
 *
 * @example
 * const chunks = await chunkText(text, { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 });
 */
export async function chunkText(text: string, strategy: StaticFileChunkingStrategy): Promise<Chunk[]> {
  const { decode } = await loadTokenizer();
  const tokens = await tokenize(text);
  const out: Chunk[] = [];
  for (const [start, end] of chunkRanges(
    tokens.length,
    strategy.max_chunk_size_tokens,
    strategy.chunk_overlap_tokens,
  )) {
    const slice = tokens.slice(start, end);
    out.push({ text: decode(slice), tokens: slice });
    await pace();
  }
  return out;
}

/**
 * A chunk's embedding windows: its tokens cut into consecutive runs of at most `window`, decoded.
 *
 * @example
 * await embeddingWindows(chunk, 384) // an 800-token chunk → 3 texts
 */
export async function embeddingWindows(chunk: Chunk, window: number): Promise<string[]> {
  if (chunk.tokens.length <= window) return [chunk.text];
  const { decode } = await loadTokenizer();
  const out: string[] = [];
  for (let at = 0; at < chunk.tokens.length; at += window)
    out.push(decode(chunk.tokens.slice(at, at + window)));
  return out;
}
