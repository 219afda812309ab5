/**
 * The `scripted` model's embeddings: a hashed bag of words, so tests can assert exact vectors and
 * texts that share words come out similar, with no model and no GPU.
 */
import { invalidRequest } from '../../common/api-error';
import type { EmbedResult } from '../types';

/** Length of a `scripted` embedding when `dimensions` is not given. */
export const SCRIPTED_EMBEDDING_DIMENSIONS = 64;

/**
 * FNV-1a (32-bit) over the UTF-8 bytes of `text`: tiny, well known and identical in every runtime,
 * which is all a test fixture's hash needs.
 *
 * @example
 * fnv1a('hello') // → 1335831723
 */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The `scripted` embedding of `text`: each whitespace-separated word, lowercased, adds 1 to
 * component `fnv1a(word) % 64`; the 64 counts are L2-normalized. With `dimensions` (1…64) the first
 * `dimensions` counts are kept and normalized, so a shortened vector is the long one truncated and
 * renormalized, as OpenAI's shortened embeddings are. A text without words is the zero vector.
 *
 * @example
 * scriptedEmbedding('hello world').length // → 64
 * scriptedEmbedding('Hello hello')[43]     // → 1: fnv1a('hello') % 64 is 43, and the vector is normalized
 */
export function scriptedEmbedding(text: string, dimensions = SCRIPTED_EMBEDDING_DIMENSIONS): number[] {
  const counts = new Array<number>(SCRIPTED_EMBEDDING_DIMENSIONS).fill(0);
  for (const word of words(text)) {
    const bucket = fnv1a(word.toLowerCase()) % SCRIPTED_EMBEDDING_DIMENSIONS;
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  const kept = counts.slice(0, dimensions);
  const norm = Math.hypot(...kept);
  return norm === 0 ? kept : kept.map((c) => c / norm);
}

/**
 * Embeds `inputs` for the `scripted` model; usage counts its words, as its chat usage does.
 *
 * @example
 * embedScripted(['a b', 'c'], 16) // → { vectors: [[…16], […16]], tokens: 3 }
 */
export function embedScripted(inputs: string[], dimensions?: number): EmbedResult {
  if (dimensions !== undefined && dimensions > SCRIPTED_EMBEDDING_DIMENSIONS) {
    throw invalidRequest(
      'dimensions',
      `Invalid 'dimensions': the model 'scripted' makes ${SCRIPTED_EMBEDDING_DIMENSIONS}-dimensional embeddings, so at most ${SCRIPTED_EMBEDDING_DIMENSIONS} can be kept, but ${dimensions} were asked for.`,
      'invalid_value',
    );
  }
  return {
    vectors: inputs.map((text) => scriptedEmbedding(text, dimensions)),
    tokens: inputs.reduce((n, text) => n + words(text).length, 0),
  };
}

function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}
