import { pace } from '../../common/pace';
import { SCAN_SLICE } from './budgets';
import { dotInt8, type IndexedFile } from './vector-index';

/** A row and its score, as rankings carry them. */
export interface Scored {
  row: number;
  score: number;
}

/**
 * The `n` rows most similar to `query` (cosine of normalised vectors, clamped to [0, 1]; over int8
 * rows in a big store, see `Int8Rows` in vector-index.ts), best first,
 * over the files `allowed` lets through: a brute-force scan, no ANN index. It yields to the event
 * loop every {@link SCAN_SLICE} rows that the turn has run long (see `pace`), so a 100k-chunk scan
 * never holds the worker in one step. Ties keep row order.
 *
 * @example
 * const best = await topRows(index.files, queryVector, 10, () => true);
 */
export async function topRows(
  files: IndexedFile[],
  query: Float32Array,
  n: number,
  allowed: (file: IndexedFile) => boolean,
  signal?: AbortSignal,
): Promise<Scored[]> {
  const top = new TopK(n);
  const dims = query.length;
  let sinceYield = 0;
  for (const file of files) {
    if (!allowed(file)) continue;
    const v = file.vectors;
    const int8 = file.int8;
    // Built with other dimensions: never comparable.
    if ((int8 ? int8.values.length : v.length) !== file.chunks.length * dims) continue;
    for (let c = 0; c < file.chunks.length; c++) {
      const dot = int8 ? dotInt8(int8, c, query) : dotAt(v, c * dims, query);
      top.offer(file.offset + c, dot < 0 ? 0 : dot > 1 ? 1 : dot);
      if (++sinceYield === SCAN_SLICE) {
        sinceYield = 0;
        signal?.throwIfAborted();
        await pace();
      }
    }
  }
  return top.sorted();
}

/**
 * `v[base … base + q.length)` · `q`, four lanes at a time: independent sums let the CPU overlap the
 * multiplies (about twice the speed of one running sum on V8).
 */
function dotAt(v: Float32Array, base: number, q: Float32Array): number {
  const n = q.length;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a += (v[base + i] as number) * (q[i] as number);
    b += (v[base + i + 1] as number) * (q[i + 1] as number);
    c += (v[base + i + 2] as number) * (q[i + 2] as number);
    d += (v[base + i + 3] as number) * (q[i + 3] as number);
  }
  for (; i < n; i++) a += (v[base + i] as number) * (q[i] as number);
  return a + b + c + d;
}

/**
 * The best `k` of a stream, by score then first-offered: an insertion into a sorted array of at most
 * `k` (≤ 50 here, or the hybrid candidate count), so a scan stays linear in its rows.
 */
export class TopK {
  private readonly items: Scored[] = [];
  constructor(private readonly k: number) {}

  offer(row: number, score: number): void {
    const items = this.items;
    if (this.k <= 0) return;
    if (items.length === this.k && score <= (items[items.length - 1] as Scored).score) return;
    let at = items.length;
    while (at > 0 && (items[at - 1] as Scored).score < score) at--;
    items.splice(at, 0, { row, score });
    if (items.length > this.k) items.pop();
  }

  sorted(): Scored[] {
    return [...this.items];
  }
}

/**
 * Reciprocal rank fusion of a dense and a text ranking: each row scores `w / (k + rank)` in each list
 * it is in (rank from 1), summed, then divided by the best possible sum so the score is in [0, 1]
 * (1: first in both). Weights that are both 0 count as equal.
 *
 * @example
 * fuse(dense, bm25, { embedding_weight: 0.7, text_weight: 0.3 }, 60)
 */
export function fuse(
  dense: Scored[],
  text: Scored[],
  weights: { embedding_weight: number; text_weight: number },
  k: number,
): Scored[] {
  let we = Math.max(0, weights.embedding_weight);
  let wt = Math.max(0, weights.text_weight);
  if (we + wt === 0) we = wt = 1;
  const best = (we + wt) / (k + 1);
  const sums = new Map<number, number>();
  for (const [i, s] of dense.entries()) sums.set(s.row, (sums.get(s.row) ?? 0) + we / (k + i + 1));
  for (const [i, s] of text.entries()) sums.set(s.row, (sums.get(s.row) ?? 0) + wt / (k + i + 1));
  return [...sums]
    .map(([row, sum]) => ({ row, score: Math.min(1, sum / best) }))
    .sort((a, b) => b.score - a.score || a.row - b.row);
}
