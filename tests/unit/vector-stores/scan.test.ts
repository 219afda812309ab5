import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuse, TopK, topRows } from '../../../src/core/vector-stores/scan';
import type { IndexedFile } from '../../../src/core/vector-stores/vector-index';
import { cpuNow } from '../../helpers/cpu-time';

/** `rows` random unit vectors of `dims`, as one indexed file. */
function randomFile(rows: number, dims: number, seed = 1): IndexedFile {
  let s = seed;
  const rand = () => {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
  const vectors = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const x = rand();
      vectors[r * dims + d] = x;
      norm += x * x;
    }
    for (let d = 0; d < dims; d++) vectors[r * dims + d] = (vectors[r * dims + d] ?? 0) / Math.sqrt(norm);
  }
  const file = {
    vectorStoreId: 'vs',
    fileId: 'file',
    created_at: 0,
    status: 'completed' as const,
    last_error: null,
    usage_bytes: 0,
    attributes: null,
    chunking_strategy: {
      type: 'static' as const,
      static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 },
    },
    filename: 'f',
    batchId: null,
    attempt: 'a',
  };
  return { file, chunks: Array.from({ length: rows }, (_, i) => `chunk ${i}`), vectors, offset: 0 };
}

describe('the brute-force scan', () => {
  it('TopK keeps the k best, best first, ties in offer order (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 50 }),
        (scores, k) => {
          const top = new TopK(k);
          for (const [row, s] of scores.entries()) top.offer(row, s / 20);
          const expected = scores
            .map((s, row) => ({ row, score: s / 20 }))
            .sort((a, b) => b.score - a.score || a.row - b.row)
            .slice(0, k);
          expect(top.sorted()).toEqual(expected);
        },
      ),
      { numRuns: 300, seed: 22 },
    );
  });

  it('finds the row equal to the query first, scores in [0, 1]', async () => {
    const file = randomFile(2000, 64);
    const query = file.vectors.slice(1234 * 64, 1235 * 64);
    const best = await topRows([file], query, 5, () => true);
    expect(best[0]?.row).toBe(1234);
    expect(best[0]?.score).toBeCloseTo(1, 5);
    for (const b of best) expect(b.score).toBeGreaterThanOrEqual(0);
  });

  it('fuse: scores in [0, 1], first in both lists scores 1, weights tilt the order', () => {
    const dense = [
      { row: 1, score: 0.9 },
      { row: 2, score: 0.8 },
    ];
    const text = [
      { row: 2, score: 5 },
      { row: 1, score: 4 },
    ];
    const even = fuse(dense, [{ row: 1, score: 5 }], { embedding_weight: 1, text_weight: 1 }, 60);
    expect(even[0]).toEqual({ row: 1, score: 1 });
    expect(fuse(dense, text, { embedding_weight: 0.9, text_weight: 0.1 }, 60)[0]?.row).toBe(1);
    expect(fuse(dense, text, { embedding_weight: 0.1, text_weight: 0.9 }, 60)[0]?.row).toBe(2);
    for (const s of fuse(dense, text, { embedding_weight: 0, text_weight: 0 }, 60))
      expect(s.score).toBeGreaterThan(0);
  });

  it('a 100k × 768 scan yields to the event loop: no step holds it for long', async () => {
    const file = randomFile(100_000, 768, 7);
    const query = file.vectors.slice(0, 768);
    let longest = 0;
    let last = cpuNow();
    const timer = setInterval(() => {
      const now = cpuNow();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    const t0 = cpuNow();
    const best = await topRows([file], query, 10, () => true);
    const ms = cpuNow() - t0;
    // The stretch since the last tick counts too: an unpaced run is one stretch with no tick at all.
    longest = Math.max(longest, cpuNow() - last);
    clearInterval(timer);
    expect(best[0]?.row).toBe(0);
    // ~500 ms of scanning on this (loaded, 2-core) machine, in steps of ~15 ms (the pace budget); an
    // unpaced scan is one step of the whole length. The bound leaves room for the OS's preemptions.
    expect(longest).toBeLessThan(150);
    expect(ms).toBeLessThan(10_000);
  });
});
