/**
 * The vector store figures of `npm run bench` (issue 22), in Node (V8, as the engine worker), loaded
 * through Vite from the TypeScript source:
 * - `vector_scan_ms`: the brute-force scan `file_search` runs, the core's own `topRows` over
 *   normalised Float32Array vectors (one file of `rows` chunks), top 10, at 10k / 100k chunks × 384 /
 *   768 dimensions, pacing included (it yields every ~15 ms of work);
 * - `ingest_ms_per_mb`: a 1 MB text file attached to a store until it is `completed`, with the
 *   `scripted` model (o200k chunking at 800/400, windows, embeddings, the store write).
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
  const vite = await viteFor(root);
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

/**
 * Both figures, `{ vector_scan_ms, ingest_ms_per_mb }`, for `npm run bench` (`BENCH_ONLY=vector`).
 *
 * @example
 * Object.assign(results, await measureVectorFigures({ root, runs: 7, stats, log }));
 */
export async function measureVectorFigures({ root, runs, stats, log }) {
  return {
    vector_scan_ms: await measureVectorScan({ root, runs, stats, log }),
    ingest_ms_per_mb: await measureIngest({ root, runs: Math.min(runs, 3), stats, log }),
  };
}

function viteFor(root) {
  return createServer({
    root,
    logLevel: 'warn',
    appType: 'custom',
    server: { middlewareMode: true, hmr: false, ws: false },
  });
}

/** About 1 MB of prose-like text (words from a fixed vocabulary, in lines). */
function megabyteOfText() {
  const words = [
    'pump',
    'valve',
    'pipe',
    'water',
    'pressure',
    'manual',
    'check',
    'the',
    'of',
    'and',
    'before',
  ];
  const rand = lcg(22);
  const lines = [];
  let size = 0;
  while (size < 1 << 20) {
    const line = Array.from({ length: 12 }, () => words[Math.floor((rand() + 0.5) * words.length)]).join(' ');
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/**
 * `ingest_ms_per_mb` with the `scripted` model: `{median, p90, runs}` of the time from attaching a
 * 1 MB text file to its vector store file reading `completed`, per MB.
 *
 * @example
 * results.ingest_ms_per_mb = await measureIngest({ root, runs: 3, stats, log });
 */
export async function measureIngest({ root, runs, stats, log }) {
  const vite = await viteFor(root);
  try {
    const { createResponsesServer } = await vite.ssrLoadModule('/src/core/index.ts');
    const { ScriptedEngine } = await vite.ssrLoadModule('/src/engine/scripted/scripted-engine.ts');
    const { MemoryStore } = await vite.ssrLoadModule('/src/store/memory-store.ts');
    const bytes = new TextEncoder().encode(megabyteOfText());
    const mb = bytes.byteLength / (1 << 20);
    const samples = [];
    for (let i = 0; i < runs + 1; i++) {
      log(`ingest 1 MB (${i === 0 ? 'warm-up' : `run ${i}`}) …`);
      const server = createResponsesServer({
        engine: new ScriptedEngine(),
        store: new MemoryStore(),
        readFile: async (id) => ({ id, filename: 'manual.txt', purpose: 'assistants', bytes }),
      });
      const call = async (method, path, body) =>
        (
          await server.fetch(
            new Request(`http://bench.invalid/v1${path}`, {
              method,
              headers: { 'content-type': 'application/json' },
              body: body && JSON.stringify(body),
            }),
          )
        ).json();
      const vs = await call('POST', '/vector_stores', {});
      const t0 = performance.now();
      let file = await call('POST', `/vector_stores/${vs.id}/files`, { file_id: 'file-mb' });
      while (file.status === 'in_progress') {
        await new Promise((r) => setTimeout(r, 5));
        file = await call('GET', `/vector_stores/${vs.id}/files/file-mb`);
      }
      if (file.status !== 'completed')
        throw new Error(`ingestion ended ${file.status}: ${file.last_error?.message}`);
      if (i > 0) samples.push((performance.now() - t0) / mb);
    }
    return stats(samples, 0);
  } finally {
    await vite.close();
  }
}
