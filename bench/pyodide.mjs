/**
 * `code_interpreter`'s sandbox figures (`BENCH_ONLY=pyodide`), in the bench page (controlled by the
 * production service worker, which serves the sandbox script with its CSP):
 *
 * - `pyodide_cold_start_ms`: a fresh sandbox worker's first call (`pass`), Pyodide's load included,
 *   from the HTTP cache (the first start, from the network, is `pyodide_cold_start_first_ms`);
 *   target ≤ 2.5 s.
 * - `pyodide_warm_call_ms`: `sum(i*i for i in range(10**6))` in a loaded sandbox, posted and answered;
 *   `pyodide_warm_call_vs_direct` divides it by the same code's time measured inside Python
 *   (`time.perf_counter`), i.e. Pyodide called directly; target within 1.3×.
 */

const WARM_CODE =
  'import time\nt = time.perf_counter()\nsum(i * i for i in range(10**6))\nprint((time.perf_counter() - t) * 1000)';

/**
 * @param {import('playwright-core').Page} page
 * @param {{ runs: number, log: (...a: unknown[]) => void, stats: (v: number[], d?: number) => object }} opts
 */
export async function measurePyodide(page, { runs, log, stats }) {
  log('pyodide: cold starts and warm calls of the sandbox worker …');
  const s = await page.evaluate(
    async ([n, code]) => {
      const call = (worker, id, text) =>
        new Promise((ok, fail) => {
          const timer = setTimeout(() => fail(new Error('sandbox call timed out')), 120_000);
          worker.onmessage = (e) => {
            if (e.data?.id !== id) return;
            clearTimeout(timer);
            ok(e.data);
          };
          worker.postMessage({ id, code: text, files: [] });
        });
      const cold = [];
      const warm = [];
      const direct = [];
      for (let i = 0; i <= n; i++) {
        const started = performance.now();
        const worker = new Worker('/intab-python/sandbox.js', { type: 'module' });
        const first = await call(worker, 1, 'pass');
        if (first.stderr) throw new Error(first.stderr);
        cold.push(performance.now() - started);
        for (let k = 0; i === 0 && k < n; k++) {
          const t = performance.now();
          const reply = await call(worker, 10 + k, code);
          warm.push(performance.now() - t);
          direct.push(Number(reply.stdout));
        }
        worker.terminate();
      }
      return { cold, warm, direct };
    },
    [runs, WARM_CODE],
  );
  return {
    pyodide_cold_start_first_ms: Math.round(s.cold[0]),
    pyodide_cold_start_ms: stats(s.cold.slice(1), 0),
    pyodide_warm_call_ms: stats(s.warm, 1),
    pyodide_warm_call_vs_direct: stats(
      s.warm.map((w, i) => w / s.direct[i]),
      2,
    ),
  };
}
