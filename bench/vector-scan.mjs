/**
 * `vector_scan_ms` for `npm run bench` (issue 22): the brute-force scan `file_search` runs, the
 * core's own `topRows` over normalised Float32Array vectors (one file of `rows` chunks), top 10,
 * at 10k / 100k chunks × 384 / 768 dimensions. It runs in Node (V8, as the engine worker), loaded
 * through Vite from the TypeScript source, and includes its pacing (it yields every ~15 ms of work).
 */
import { createServer } from 'vite';

const SIZES = [
  [10_000, 384],
  [10_000, 768],
  [100_000, 384],
  [100_000, 768],
];

/** A deterministic generator, so every run scans the same vectors. */
function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

function unitRows(rows, dims, seed) {
  const rand = lcg(seed);
  const v = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const x = rand();
      v[r * dims + d] = x;
      norm += x * x;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dims; d++) v[r * dims + d] *= inv;
  }
  return v;
}

/**
 * `{ '10k_x_384': {median, p90, runs}, … }` in ms.
 *
 * @example
 * results.vector_scan_ms = await measureVectorScan({ root, runs: 7, stats, log });
 */
export async function measureVectorScan({ root, runs, stats, log }) {
  const vite = await createServer({
    root,
    logLevel: 'warn',
    appType: 'custom',
    server: { middlewareMode: true, hmr: false, ws: false },
  });
  try {
    const { topRows } = await vite.ssrLoadModule('/src/core/vector-stores/scan.ts');
    const out = {};
    for (const [rows, dims] of SIZES) {
      log(`vector scan ${rows} × ${dims} …`);
      const vectors = unitRows(rows, dims, rows + dims);
      const file = { file: {}, chunks: new Array(rows).fill(''), vectors, offset: 0 };
      const query = unitRows(1, dims, 7);
      const samples = [];
      for (let i = 0; i < runs + 1; i++) {
        const t0 = performance.now();
        await topRows([file], query, 10, () => true);
        if (i > 0) samples.push(performance.now() - t0); // the first run warms the JIT
      }
      out[`${rows / 1000}k_x_${dims}`] = stats(samples, 1);
    }
    return out;
  } finally {
    await vite.close();
  }
}
