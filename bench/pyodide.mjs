/**
 * `code_interpreter`'s sandbox figures (`BENCH_ONLY=pyodide`), in the bench page (controlled by the
 * production service worker, which serves the sandbox script with its CSP), in a Chromium profile
 * on disk: an incognito context keeps no 9.6 MB wasm in its memory-only HTTP cache, so "from the
 * HTTP cache" needs a real profile, as users have.
 *
 * - `pyodide_cold_start_ms`: a fresh sandbox worker's first call (`pass`), started as the engine
 *   worker starts it: its init carries the interpreter snapshot, read from Cache Storage in the
 *   timed span (src/sandbox/snapshot.ts); assets from the HTTP cache. Target ≤ 2.5 s.
 * - `pyodide_cold_start_clean_ms`: the same with no snapshot (Pyodide's own start: the app's first
 *   sandbox, or any after a Pyodide upgrade); `pyodide_cold_start_first_ms`: the very first, from
 *   the network, which also makes the snapshot.
 * - `pyodide_warm_call_ms`: `sum(i*i for i in range(10**6))` in a loaded sandbox, posted and answered;
 *   `pyodide_warm_call_vs_direct` divides it by the same code's time measured inside Python
 *   (`time.perf_counter`), i.e. Pyodide called directly; target within 1.3×.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

const WARM_CODE =
  'import time\nt = time.perf_counter()\nsum(i * i for i in range(10**6))\nprint((time.perf_counter() - t) * 1000)';

/** In the page: the cold starts (first, snapshot, clean) and the warm calls. */
async function inPage([n, code]) {
  const CACHE = 'intab-python-snapshot';
  const KEY = `${location.origin}/intab-python/.snapshot-bench`;
  const hex = async (bytes) =>
    Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (b) =>
      b.toString(16).padStart(2, '0'),
    ).join('');
  /** Waits for the message `pick` accepts (bounded). */
  const next = (worker, pick) =>
    new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error('sandbox timed out')), 120_000);
      worker.onmessage = (e) => {
        const got = pick(e.data);
        if (got === undefined) return;
        clearTimeout(timer);
        ok(got);
      };
    });
  const reply = (worker, id) => next(worker, (d) => (d?.id === id ? d : undefined));
  /** One cold start: worker, init (the snapshot read from Cache Storage when `snap`), first call. */
  async function cold(snap, makeSnapshot = false) {
    const started = performance.now();
    const worker = new Worker('/intab-python/sandbox.js', { type: 'module' });
    const startMsg = next(worker, (d) => d?.started);
    let snapshot = null;
    if (snap) {
      const hit = await (await caches.open(CACHE)).match(KEY);
      snapshot = {
        bytes: new Uint8Array(await hit.arrayBuffer()),
        sha256: hit.headers.get('x-intab-sha256'),
      };
    }
    worker.postMessage({ init: { snapshot, makeSnapshot } }, snapshot ? [snapshot.bytes.buffer] : []);
    const s = await startMsg;
    const answer = reply(worker, 1);
    worker.postMessage({ id: 1, code: 'pass', files: [] });
    const first = await answer;
    if (first.stderr) throw new Error(first.stderr);
    if (snap && !s.fromSnapshot) throw new Error(`snapshot not used: ${s.snapshotError}`);
    return { worker, ms: performance.now() - started, started: s };
  }
  await caches.delete(CACHE);
  const first = await cold(false, true);
  first.worker.terminate();
  const made = first.started.snapshot;
  await (await caches.open(CACHE)).put(
    KEY,
    new Response(made.bytes, { headers: { 'x-intab-sha256': await hex(made.bytes) } }),
  );
  const snapshotMs = [];
  const cleanMs = [];
  const warm = [];
  const direct = [];
  for (let i = 0; i < n; i++) {
    const c = await cold(false);
    cleanMs.push(c.ms);
    c.worker.terminate();
    const s = await cold(true);
    snapshotMs.push(s.ms);
    for (let k = 0; i === 0 && k < n; k++) {
      const t = performance.now();
      const answer = reply(s.worker, 10 + k);
      s.worker.postMessage({ id: 10 + k, code, files: [] });
      const r = await answer;
      warm.push(performance.now() - t);
      direct.push(Number(r.stdout));
    }
    s.worker.terminate();
  }
  await caches.delete(CACHE);
  return { first: first.ms, snapshotBytes: made.bytes.length, snapshotMs, cleanMs, warm, direct };
}

/**
 * @param {import('playwright-core').Page} _page the bench page (unused: see the profile note above)
 * @param {{ runs: number, log: (...a: unknown[]) => void, stats: (v: number[], d?: number) => object,
 *   baseUrl: string, launchPersistent: (dir: string) => Promise<import('playwright-core').BrowserContext> }} opts
 */
export async function measurePyodide(_page, { runs, log, stats, baseUrl, launchPersistent }) {
  log('pyodide: cold starts (snapshot, clean) and warm calls of the sandbox worker, in a profile on disk …');
  const dir = mkdtempSync(join(os.tmpdir(), 'intab-bench-profile-'));
  const context = await launchPersistent(dir);
  try {
    const page = await context.newPage();
    await page.goto(`${baseUrl}/bench/index.html`);
    await page.evaluate(() => window.intabBench.ready);
    if (!(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)))) await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller, null, { timeout: 30_000 });
    const loadavg = os.loadavg()[0];
    const s = await page.evaluate(inPage, [runs, WARM_CODE]);
    return {
      pyodide_cold_start_first_ms: Math.round(s.first),
      pyodide_cold_start_ms: stats(s.snapshotMs, 0),
      pyodide_cold_start_clean_ms: stats(s.cleanMs, 0),
      pyodide_snapshot_bytes: s.snapshotBytes,
      pyodide_loadavg_1m: Math.round(((loadavg + os.loadavg()[0]) / 2) * 100) / 100,
      pyodide_warm_call_ms: stats(s.warm, 1),
      pyodide_warm_call_vs_direct: stats(
        s.warm.map((w, i) => w / s.direct[i]),
        2,
      ),
    };
  } finally {
    await context.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
