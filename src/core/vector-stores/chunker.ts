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

/** Pieces encoded between two chances to yield: a piece is a word or so. */
const PIECES_PER_STEP = 2048;

/**
 * The o200k_base tokens of `text`, exactly `encode(text)`'s, encoded piece by piece with
 * {@link pace} between slices so a megabyte of text never holds the worker's loop for long.
 *
 * @example
 * await tokenize('hello world') // → [24912, 2375]
 */
export async function tokenize(text: string): Promise<number[]> {
  const { encodeGenerator } = await loadTokenizer();
  const out: number[] = [];
  let n = 0;
  for (const piece of encodeGenerator(text, AS_TEXT)) {
    for (const t of piece) out.push(t);
    if (++n % PIECES_PER_STEP === 0) await pace();
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
