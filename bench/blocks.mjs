/**
 * `max_event_loop_block_ms` (issue 27, item 4): the longest synchronous block of the engine worker's
 * event loop while the big-but-legal requests of bench/heavy-requests.ts are served through the
 * service worker, with other streams running. Each run sends fresh bodies (new schema names and
 * patterns), so the figure is what a new schema costs, not a cache hit; the first run is also the
 * first the worker has compiled at all.
 */

/** Streams kept running beside the heavy requests. */
const STREAMS = 4;

const round1 = (v) => Number(v.toFixed(1));

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** `{median, p90, max, runs}` in ms, as the rest of the bench reports (p90: nearest rank). */
function stats(values) {
  return {
    median: round1(quantile(values, 0.5)),
    p90: round1(quantile(values, 0.9)),
    max: round1(Math.max(...values)),
    runs: values.length,
  };
}

/**
 * Runs the heavy set `runs` times on the bench page and returns the figure, with each request's own.
 *
 * @example
 * results.max_event_loop_block_ms = await measureBlocks(bench, { runs: 7, log });
 */
export async function measureBlocks(bench, { runs, log }) {
  log(`heavy requests × ${runs}, ${STREAMS} streams running …`);
  const perRun = [];
  const byName = new Map();
  for (let i = 0; i < runs; i++) {
    const rows = await bench('heavyBlocks', `r${i}${Date.now().toString(36)}`, STREAMS);
    for (const r of rows) {
      if (r.status !== r.expected)
        throw new Error(`blocks: ${r.name}: HTTP ${r.status}, expected ${r.expected}: ${r.error}`);
      const entry = byName.get(r.name) ?? { bytes: r.bytes, blocks: [], totals: [] };
      entry.blocks.push(r.blockMs);
      entry.totals.push(r.totalMs);
      byName.set(r.name, entry);
    }
    perRun.push(Math.max(...rows.map((r) => r.blockMs)));
  }
  return {
    ...stats(perRun),
    target: 50,
    streams: STREAMS,
    measured:
      'per run: the longest gap between ticks of a 1 ms interval in the engine worker while each heavy request (fresh bodies) was served through the service worker beside the streams',
    by_request: Object.fromEntries(
      [...byName].map(([name, e]) => [
        name,
        {
          bytes: e.bytes,
          block_ms: stats(e.blocks),
          total_ms: stats(e.totals),
          first_run_block_ms: round1(e.blocks[0]),
        },
      ]),
    ),
  };
}
