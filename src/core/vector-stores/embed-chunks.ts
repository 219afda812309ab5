import { ApiError } from '../../common/api-error';
import { pace } from '../../common/pace';
import type { Engine } from '../../engine/types';
import type { StoredVectors } from '../../store/vector-stores';
import { EMBED_BATCH, EMBED_WINDOW_TOKENS } from './budgets';
import { type Chunk, embeddingWindows, tokenize } from './chunker';

/**
 * Embeds each chunk as the L2-normalised mean of its windows' embeddings (windows of at most
 * {@link EMBED_WINDOW_TOKENS} o200k tokens): an 800-token chunk stays whole as the unit a search
 * returns, while no window is longer than a small embedding model reads. The vectors come back as
 * one row-major Float32Array buffer, the form they are stored and scanned in.
 *
 * @example
 * const { dimensions, data } = await embedChunks(engine, 'scripted', chunks, signal);
 */
export async function embedChunks(
  engine: Engine,
  model: string,
  chunks: Chunk[],
  signal?: AbortSignal,
): Promise<StoredVectors> {
  const windows: { owner: number; text: string }[] = [];
  for (const [owner, chunk] of chunks.entries())
    for (const text of await embeddingWindows(chunk, EMBED_WINDOW_TOKENS)) windows.push({ owner, text });
  const embed = engine.embed?.bind(engine);
  if (!embed) throw new ApiError(500, 'server_error', 'server_error', null, 'The engine has no embeddings.');
  let dims = 0;
  let sums = new Float32Array(0);
  for (let at = 0; at < windows.length; at += EMBED_BATCH) {
    signal?.throwIfAborted();
    const batch = windows.slice(at, at + EMBED_BATCH);
    const { vectors } = await embed(
      model,
      batch.map((w) => w.text),
      undefined,
      signal,
    );
    for (const [i, vector] of vectors.entries()) {
      if (dims === 0) {
        dims = vector.length;
        sums = new Float32Array(chunks.length * dims);
      }
      if (vector.length !== dims) throw mismatch(model, dims, vector.length);
      const row = (batch[i]?.owner ?? 0) * dims;
      for (let d = 0; d < dims; d++) sums[row + d] = (sums[row + d] ?? 0) + (vector[d] ?? 0);
    }
    await pace();
  }
  for (let row = 0; row < chunks.length; row++) normalise(sums.subarray(row * dims, (row + 1) * dims));
  return { dimensions: dims, data: sums.buffer as ArrayBuffer };
}

/**
 * Each query embedded the way chunks are (the mean of its windows), normalised.
 *
 * @example
 * const [q] = await embedQueries(engine, 'scripted', ['solar panels']);
 */
export async function embedQueries(
  engine: Engine,
  model: string,
  queries: string[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const chunks: Chunk[] = [];
  for (const text of queries) chunks.push({ text, tokens: await tokenize(text) });
  const { dimensions, data } = await embedChunks(engine, model, chunks, signal);
  const all = new Float32Array(data);
  return queries.map((_, i) => all.subarray(i * dimensions, (i + 1) * dimensions));
}

/** Scales `v` to unit length in place; a zero vector stays zero (it matches nothing). */
export function normalise(v: Float32Array): void {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum === 0) return;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) * inv;
}

function mismatch(model: string, want: number, got: number): ApiError {
  return new ApiError(
    500,
    'server_error',
    'server_error',
    null,
    `The embedding model '${model}' answered vectors of ${got} dimensions after ${want}.`,
  );
}
