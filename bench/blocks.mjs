/**
 * `max_event_loop_block_ms` (issue 27, item 4): the longest synchronous block of the engine worker's
 * event loop while the big-but-legal requests of bench/heavy-requests.ts are served through the
 * service worker, with other streams running. Each run sends fresh bodies (new schema names and
 * patterns), so the figure is what a new schema costs, not a cache hit; the first run is also the
 * first the worker has compiled at all.
 *
 * Two measures of a block. The figure is the CPU time of the longest task the worker's thread ran
 * (Chromium's devtools trace: the `tdur` of its `RunTask` events): what the request's own work costs, whatever else
 * the machine runs. Beside it, `wall_gap_ms`: the longest gap between ticks of a 1 ms interval in the
 * worker, which is what a page waits, but which a busy machine inflates (a thread not scheduled).
 */

import { writeFileSync } from 'node:fs';
import { quantile } from './stats.mjs';

/** Streams kept running beside the heavy requests. */
const STREAMS = 4;
/** As bench/block-watch.ts marks the trace. */
const BLOCK_MARK = 'intab-heavy:';
const CATEGORIES = ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'];

const round1 = (v) => Number(v.toFixed(1));

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
 * Per request label, the longest task (thread time, ms) the engine worker's thread ran while it was
 * served: tasks are given to the last mark before them on that thread.
 */
function longestTasks(trace) {
  const events = JSON.parse(trace.toString('utf8')).traceEvents ?? [];
  const workers = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'DedicatedWorker thread')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const onWorker = events.filter((e) => workers.has(`${e.pid}:${e.tid}`)).sort((a, b) => a.ts - b.ts);
  const longest = new Map();
  let label = null;
  for (const e of onWorker) {
    const message = e.name === 'TimeStamp' ? e.args?.data?.message : null;
    if (typeof message === 'string' && message.startsWith(BLOCK_MARK)) {
      label = message.slice(BLOCK_MARK.length);
      continue;
    }
    if (label === null || e.ph !== 'X' || e.name !== 'RunTask' || typeof e.tdur !== 'number') continue;
    longest.set(label, Math.max(longest.get(label) ?? 0, e.tdur / 1000));
  }
  return longest;
}

/**
 * Runs the heavy set `runs` times on the bench page, traced, and returns the figure with each
 * request's own.
 *
 * @example
 * results.max_event_loop_block_ms = await measureBlocks(bench, { browser, page, runs: 7, log });
 */
export async function measureBlocks(bench, { browser, page, runs, log }) {
  log(`heavy requests × ${runs}, ${STREAMS} streams running, traced …`);
  const perRun = [];
  const perRunWall = [];
  const byName = new Map();
  for (let i = 0; i < runs; i++) {
    await browser.startTracing(page, { categories: CATEGORIES });
    let rows;
    let trace;
    try {
      rows = await bench('heavyBlocks', `r${i}${Date.now().toString(36)}`, STREAMS);
    } finally {
      trace = await browser.stopTracing();
    }
    // BENCH_TRACE_DIR=dir keeps each run's trace, for chrome://tracing or Perfetto.
    if (process.env.BENCH_TRACE_DIR) writeFileSync(`${process.env.BENCH_TRACE_DIR}/blocks-${i}.json`, trace);
    const cpu = longestTasks(trace);
    for (const r of rows) {
      // Said, not thrown: a request that stalls the worker may well end in a 503, and that is the figure.
      if (r.status !== r.expected)
        log(`blocks: ${r.name}: HTTP ${r.status}, expected ${r.expected}: ${r.error}`);
      const entry = byName.get(r.name) ?? { bytes: r.bytes, cpu: [], wall: [], totals: [], wrong: [] };
      entry.cpu.push(cpu.get(r.name) ?? 0);
      entry.wall.push(r.blockMs);
      entry.totals.push(r.totalMs);
      if (r.status !== r.expected) entry.wrong.push(r.status);
      byName.set(r.name, entry);
    }
    if (cpu.size === 0) throw new Error('blocks: the trace holds no task of the engine worker');
    perRun.push(Math.max(...rows.map((r) => cpu.get(r.name) ?? 0)));
    perRunWall.push(Math.max(...rows.map((r) => r.blockMs)));
  }
  const entries = [...byName];
  return {
    ...stats(perRun),
    target: 50,
    all_answered_as_expected: entries.every(([, e]) => e.wrong.length === 0),
    streams: STREAMS,
    measured:
      "per run: the CPU time of the longest task of the engine worker's thread (Chromium devtools trace, RunTask tdur) while the heavy requests (fresh bodies) were served through the service worker beside the streams",
    wall_gap_ms: stats(perRunWall),
    by_request: Object.fromEntries(
      entries.map(([name, e]) => [
        name,
        {
          bytes: e.bytes,
          block_ms: stats(e.cpu),
          first_run_block_ms: round1(e.cpu[0]),
          wall_gap_ms: stats(e.wall),
          total_ms: stats(e.totals),
          ...(e.wrong.length > 0 && { wrong_statuses: e.wrong }),
        },
      ]),
    ),
  };
}
