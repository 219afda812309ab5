/**
 * The int8 figures of `npm run bench` (issue 22: "above 50k chunks store int8 vectors, 4× less memory,
 * and measure the recall loss"), beside bench/vector-scan.mjs and with its vectors: the core's own
 * `topRows` over int8 rows (`quantizeRows`) at 100k chunks × 384 / 768 dimensions, top 10, in Node
 * (V8, as the engine worker), with the memory both forms take and the recall@10 of the int8 scan
 * against the float32 one over 20 random queries.
 */
import { createServer } from 'vite';

const SIZES = [
  [100_000, 384],
  [100_000, 768],
];

function unitRows(rows, dims, seed) {
  let s = seed >>> 0;
  const v = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
      const x = s / 2 ** 32 - 0.5;
      v[r * dims + d] = x;
      norm += x * x;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dims; d++) v[r * dims + d] *= inv;
  }
  return v;
}

/**
 * `{ '100k_x_384': {median, p90, runs, float32_mb, int8_mb, recall_at_10, float32_scan_ms}, … }`.
 *
 * @example
 * results.vector_scan_int8_ms = await measureInt8Scan({ root, runs: 7, stats, log });
 */
export async function measureInt8Scan({ root, runs, stats, log }) {
  const vite = await createServer({
    root,
    logLevel: 'warn',
    appType: 'custom',
    server: { middlewareMode: true, hmr: false, ws: false },
  });
  try {
    const { topRows } = await vite.ssrLoadModule('/src/core/vector-stores/scan.ts');
    const { quantizeRows, int8Bytes } = await vite.ssrLoadModule('/src/core/vector-stores/vector-index.ts');
    const out = {};
    for (const [rows, dims] of SIZES) {
      log(`int8 vector scan ${rows} × ${dims} …`);
      const vectors = unitRows(rows, dims, rows + dims);
      const chunks = new Array(rows).fill('');
      const float = { file: {}, chunks, vectors, offset: 0 };
      const int8 = {
        file: {},
        chunks,
        vectors: new Float32Array(0),
        offset: 0,
        int8: await quantizeRows(vectors, dims),
      };
      const queries = Array.from({ length: 20 }, (_, i) => unitRows(1, dims, 7 + i));
      const time = async (file) => {
        const samples = [];
        for (let i = 0; i < runs + 1; i++) {
          const t0 = performance.now();
          await topRows([file], queries[i % queries.length], 10, () => true);
          if (i > 0) samples.push(performance.now() - t0); // the first run warms the JIT
        }
        return samples;
      };
      const int8Ms = await time(int8);
      const floatMs = await time(float);
      let found = 0;
      for (const q of queries) {
        const want = new Set((await topRows([float], q, 10, () => true)).map((s) => s.row));
        for (const s of await topRows([int8], q, 10, () => true)) if (want.has(s.row)) found++;
      }
      out[`${rows / 1000}k_x_${dims}`] = {
        ...stats(int8Ms, 1),
        float32_scan_ms: stats(floatMs, 1),
        float32_mb: Number((vectors.byteLength / 2 ** 20).toFixed(1)),
        int8_mb: Number((int8Bytes(int8.int8) / 2 ** 20).toFixed(1)),
        recall_at_10: Number((found / (10 * queries.length)).toFixed(3)),
      };
    }
    return out;
  } finally {
    await vite.close();
  }
}
