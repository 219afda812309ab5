#!/usr/bin/env node
/**
 * `npm run bench`: measures the runtime's own cost in Debian Chromium (headless, playwright-core)
 * with the `scripted` model, prints a table and writes bench/results.json.
 *
 * It builds the app plus the bench page (bench/index.html, its engine worker bench/engine-worker.ts)
 * into .tmp/bench-dist, serves that with `vite preview`, opens the bench page (controlled by the
 * production service worker) and compares each request read by the page through the service worker
 * with the same request produced and read inside the engine worker, with the same SSE reader.
 *
 * Options (environment): BENCH_RUNS (default 7), BENCH_TOKENS (default 20000), BENCH_SKIP_BUILD=1 (reuse
 * .tmp/bench-dist), BENCH_NO_MINIFY=1 (for profiling), BENCH_TRACE_DIR=dir (keep the blocks figure's traces), BENCH_WLLAMA_THREADS=N (llama.cpp threads on both sides), BENCH_ONLY=sse,floor,first,concurrent,cold,heap,blocks,bytes,wllama,vector,remote,pyodide (a subset, for profiling; the
 * results file then holds only those figures).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { build, preview } from 'vite';
import { ensureTestModel } from '../scripts/build-test-gguf.mjs';
import { measureBlocks } from './blocks.mjs';
import { measurePyodide } from './pyodide.mjs';
import { measureRemote } from './remote.mjs';
import { table } from './table.mjs';
import { measureVectorFigures } from './vector-scan.mjs';
import { measureNative, measureScriptedBytes, measureWllama, scriptBytesPlugin } from './wllama.mjs';

const root = resolve(import.meta.dirname, '..');
const outDir = resolve(root, '.tmp/bench-dist');
const resultsPath = resolve(root, 'bench/results.json');

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 20_000);
const HEAP_TOKENS = 100_000;
const CONCURRENT = 8;
const CONCURRENT_WORDS = 2_000;
const FLOOR_PATH = '/v1/bench/floor';
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const runs = (section) => !ONLY || ONLY.has(section);

/** Debian's Chromium with the e2e harness's flags (tests/chromium.json). Never `playwright install`. */
const CHROMIUM = JSON.parse(readFileSync(new URL('../tests/chromium.json', import.meta.url), 'utf8'));

const log = (...args) => console.error('[bench]', ...args);

// ─── statistics ──────────────────────────────────────────────────────────────────────────────────

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
const round = (v, digits = 3) => Number(v.toFixed(digits));
/** `{median, p90, runs}` of a list of samples (p90: nearest rank). */
function stats(values, digits = 3) {
  return {
    median: round(quantile(values, 0.5), digits),
    p90: round(quantile(values, 0.9), digits),
    runs: values.length,
  };
}

// ─── setup ───────────────────────────────────────────────────────────────────────────────────────

async function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => ok(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function buildBench() {
  log('building the app and the bench page into .tmp/bench-dist …');
  await build({
    root,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      // Readable names in CPU profiles; the timed runs use the production minifier.
      ...(process.env.BENCH_NO_MINIFY ? { minify: false } : {}),
      rolldownOptions: {
        input: {
          bench: resolve(root, 'bench/index.html'),
          wllama: resolve(root, 'bench/wllama.html'),
          scripted: resolve(root, 'bench/scripted.html'),
        },
      },
    },
  });
  // The ~93M test model is served beside the tiny one (which the app's build copies itself).
  const { path } = await ensureTestModel('bench');
  mkdirSync(resolve(outDir, 'test-models'), { recursive: true });
  copyFileSync(path, resolve(outDir, 'test-models/intab-bench-q8_0.gguf'));
}

function git(args) {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

/** A CDP session into the engine worker (a dedicated worker: Playwright only opens sessions on pages). */
async function workerSession(browser, page) {
  const cdp = await browser.newBrowserCDPSession();
  const url = page.url();
  const deadline = Date.now() + 10_000;
  let target;
  while (!target && Date.now() < deadline) {
    const { targetInfos } = await cdp.send('Target.getTargets');
    target = targetInfos.find((t) => t.type === 'worker' && new URL(t.url).origin === new URL(url).origin);
    if (!target) await new Promise((r) => setTimeout(r, 100));
  }
  if (!target) throw new Error('engine worker target not found');
  const { sessionId } = await cdp.send('Target.attachToTarget', {
    targetId: target.targetId,
    flatten: false,
  });
  let nextId = 1;
  const pending = new Map();
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    if (event.sessionId !== sessionId) return;
    const msg = JSON.parse(event.message);
    const waiter = msg.id && pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(`${msg.error.message}`));
    else waiter.resolve(msg.result);
  });
  return {
    send(method, params = {}) {
      const id = nextId++;
      return new Promise((res, rej) => {
        pending.set(id, { resolve: res, reject: rej });
        cdp
          .send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) })
          .catch(rej);
      });
    },
    detach: () => cdp.detach().catch(() => {}),
  };
}

// ─── checks ──────────────────────────────────────────────────────────────────────────────────────

function wordsText(n) {
  let s = '';
  for (let i = 1; i <= n; i++) s += i === 1 ? 'w1' : ` w${i}`;
  return s;
}

function checkStream(read, expectedText, label) {
  const problems = [];
  if (read.text !== expectedText)
    problems.push(`text differs (${read.text.length} vs ${expectedText.length} chars)`);
  if (!read.ordered) problems.push('sequence numbers out of order');
  if (read.itemIds.length !== 1) problems.push(`${read.itemIds.length} message items`);
  if (read.responseIds.length !== 1) problems.push(`${read.responseIds.length} response ids`);
  if (read.lastType !== 'response.completed') problems.push(`ended with ${read.lastType}`);
  if (problems.length) throw new Error(`${label}: ${problems.join('; ')}`);
}

// ─── the measurements ────────────────────────────────────────────────────────────────────────────

async function main() {
  const started = Date.now();
  // The test GGUFs the llama.cpp figures run (built once, cached in .cache/models/).
  if (runs('wllama')) await ensureTestModel('tiny');
  if (!process.env.BENCH_SKIP_BUILD) await buildBench();
  const port = await freePort();
  const server = await preview({
    root,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true },
    plugins: [scriptBytesPlugin()],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch(CHROMIUM);
  try {
    const context = await browser.newContext({ baseURL: baseUrl });
    const page = await context.newPage();
    const consoleLines = [];
    page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
    await page.goto('/bench/index.html');
    try {
      await page.evaluate(() => window.intabBench.ready);
    } catch (err) {
      throw new Error(`bench page not ready: ${err.message}\n${consoleLines.join('\n')}`);
    }
    const bench = (name, ...args) => page.evaluate(([n, a]) => window.intabBench[n](...a), [name, args]);
    const results = await measure(bench, browser, page);
    if (runs('blocks'))
      results.max_event_loop_block_ms = await measureBlocks(bench, { browser, page, runs: RUNS, log });
    if (runs('bytes')) {
      log('JavaScript of a scripted-only page load …');
      results.scripted_page_js_kb = await measureScriptedBytes(browser, baseUrl, outDir);
    }
    if (runs('wllama')) {
      const wpage = await (await browser.newContext({ baseURL: baseUrl })).newPage();
      wpage.on('pageerror', (e) => consoleLines.push(`wllama pageerror: ${e.message}`));
      // BENCH_WLLAMA_THREADS=1 takes llama.cpp's threads out of the comparison on a busy machine.
      const threads = process.env.BENCH_WLLAMA_THREADS;
      await wpage.goto(`/bench/wllama.html${threads ? `#threads=${threads}` : ''}`);
      Object.assign(results, await measureWllama(wpage, { runs: RUNS }));
      await wpage.context().close();
      results.wllama_vs_native = await measureNative(results.wllama_intab_vs_direct);
    }
    if (runs('pyodide')) Object.assign(results, await measurePyodide(page, { runs: RUNS, log, stats }));
    if (runs('vector')) Object.assign(results, await measureVectorFigures({ root, runs: RUNS, stats, log }));
    if (runs('remote')) Object.assign(results, await measureRemote({ runs: RUNS, log, root, stats }));
    results.environment = {
      chromium: browser.version(),
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? null,
      loadavg_1m_at_start: round(os.loadavg()[0], 2),
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      node: process.version,
      date: new Date().toISOString(),
      git_commit: git(['rev-parse', 'HEAD']),
      git_dirty: (git(['status', '--porcelain']) ?? '') !== '',
      bench_seconds: round((Date.now() - started) / 1000, 1),
    };
    writeFileSync(resultsPath, `${JSON.stringify(ordered(results), null, 2)}\n`);
    console.log(table(results));
    log(`wrote ${resultsPath} in ${results.environment.bench_seconds} s`);
  } finally {
    await browser.close().catch(() => {});
    await server.close();
  }
}

async function measure(bench, browser, page) {
  const words = `!words ${TOKENS}`;
  const stored = { model: 'scripted', input: words, stream: true };
  const unstored = { ...stored, store: false };
  const small = { model: 'scripted', input: 'hello there', stream: true, store: false };
  const smallJson = { model: 'scripted', input: 'hello there', store: false };
  const expected = wordsText(TOKENS);
  const out = {};

  log('warming up …');
  for (let i = 0; i < 2; i++) {
    checkStream(await bench('localStream', stored), expected, 'local warm-up');
    checkStream(await bench('pageStream', stored), expected, 'page warm-up');
    await bench('localStream', small);
    await bench('pageStream', small);
    await bench('localJson', smallJson);
    await bench('pageJson', smallJson);
  }

  if (runs('sse')) {
    // The 20k-token stream, unstored and stored (the default), in the page and in the worker. The
    // per-token overhead compares unstored runs, so IndexedDB's variance stays out of it; the store's
    // own cost is store_overhead_pct.
    log(`${TOKENS}-token streams × ${RUNS * 2} …`);
    const sse = {
      overheadUs: [],
      storedOverheadUs: [],
      pageMs: [],
      localMs: [],
      storedPageMs: [],
      storedLocalMs: [],
    };
    const store = { pct: [], txPer1k: [], localPct: [] };
    let chunkInfo = null;
    // Twice the runs (these are short), alternating which of the pair goes first.
    for (let i = 0; i < RUNS * 2; i++) {
      const storedFirst = i % 2 === 1;
      const local = await bench('localStream', unstored);
      const localStored = await bench('localStream', stored);
      let viaSw = storedFirst ? null : await bench('pageStream', unstored);
      const tx0 = await bench('idbTransactions');
      const viaSwStored = await bench('pageStream', stored);
      const tx1 = await bench('idbTransactions');
      viaSw ??= await bench('pageStream', unstored);
      checkStream(local, expected, 'in-worker stream');
      checkStream(viaSw, expected, 'page stream');
      checkStream(viaSwStored, expected, 'page stream, stored');
      checkStream(localStored, expected, 'in-worker stream, stored');
      sse.overheadUs.push(((viaSw.totalMs - local.totalMs) * 1000) / TOKENS);
      sse.storedOverheadUs.push(((viaSwStored.totalMs - localStored.totalMs) * 1000) / TOKENS);
      sse.pageMs.push(viaSw.totalMs);
      sse.localMs.push(local.totalMs);
      sse.storedPageMs.push(viaSwStored.totalMs);
      sse.storedLocalMs.push(localStored.totalMs);
      store.pct.push((viaSwStored.totalMs / viaSw.totalMs - 1) * 100);
      store.localPct.push((localStored.totalMs / local.totalMs - 1) * 100);
      store.txPer1k.push(((tx1 - tx0) * 1000) / TOKENS);
      chunkInfo = {
        events: viaSw.events,
        bytes: viaSw.bytes,
        worker_chunks: local.chunks,
        page_chunks: viaSw.chunks,
      };
    }
    out.sse_per_token_overhead_us = {
      ...stats(sse.overheadUs),
      target: 20,
      tokens: TOKENS,
      compared: 'store:false; page total (fetch start to end of body) minus in-worker total, per token',
      page_total_ms: stats(sse.pageMs, 1),
      worker_total_ms: stats(sse.localMs, 1),
      stored_us: stats(sse.storedOverheadUs),
      ...chunkInfo,
    };
    out.idb_transactions_per_1k_tokens = {
      ...stats(store.txPer1k),
      target: 5,
      counted:
        'IDBDatabase#transaction calls (reads and writes) in the engine worker during one stored streamed response',
    };
    out.store_overhead_pct = {
      ...stats(store.pct, 1),
      target: 5,
      compared: 'page total with store:true over the same with store:false, per pair of runs',
      ratio_of_medians_pct: round((quantile(sse.storedPageMs, 0.5) / quantile(sse.pageMs, 0.5) - 1) * 100, 1),
      page_store_true_ms: stats(sse.storedPageMs, 1),
      page_store_false_ms: stats(sse.pageMs, 1),
      in_worker_pct: stats(store.localPct, 1),
      in_worker_store_true_ms: stats(sse.storedLocalMs, 1),
      in_worker_store_false_ms: stats(sse.localMs, 1),
    };
  }

  if (runs('floor')) {
    // The transport floor: the same bytes, pre-generated, through worker → SW → page with no
    // Responses work; in slices of the core's coalescing limit (the floor proper), and one chunk per
    // event (what a body that does not coalesce pays).
    log('transport floor …');
    const info = await bench('prepareFloor', unstored);
    const floor = { coalesced: { net: [], gross: [], page: [], local: [], chunks: 0 } };
    floor.event = { net: [], gross: [], page: [], local: [], chunks: 0 };
    for (let i = 0; i < RUNS; i++) {
      for (const chunking of ['coalesced', 'event']) {
        const viaSw = await bench('pageStream', {}, `${FLOOR_PATH}?chunks=${chunking}`);
        const local = await bench('localFloor', chunking);
        if (viaSw.events !== local.events || viaSw.bytes !== info.bytes)
          throw new Error('floor: bytes differ');
        const f = floor[chunking];
        f.net.push(((viaSw.totalMs - local.totalMs) * 1000) / TOKENS);
        f.gross.push((viaSw.totalMs * 1000) / TOKENS);
        f.page.push(viaSw.totalMs);
        f.local.push(local.totalMs);
        f.chunks = viaSw.chunks;
      }
    }
    out.transport_floor_per_token_us = {
      ...stats(floor.coalesced.net),
      compared:
        'pre-generated bytes in 64 KiB chunks: page read minus the same read in the worker, per token',
      gross_us: stats(floor.coalesced.gross),
      page_total_ms: stats(floor.coalesced.page, 1),
      worker_read_ms: stats(floor.coalesced.local, 1),
      worker_chunks: info.coalescedChunks,
      page_chunks: floor.coalesced.chunks,
      bytes: info.bytes,
      one_chunk_per_event: {
        ...stats(floor.event.net),
        page_total_ms: stats(floor.event.page, 1),
        worker_chunks: info.eventChunks,
        page_chunks: floor.event.chunks,
      },
    };
  }

  if (runs('first')) {
    // Warm: first SSE event of a small stream, and a small JSON request.
    log('first event and JSON, warm …');
    const first = { overheadMs: [], pageMs: [], localMs: [] };
    const json = { overheadMs: [], pageMs: [], localMs: [] };
    for (let i = 0; i < RUNS * 2; i++) {
      const local = await bench('localStream', small);
      const viaSw = await bench('pageStream', small);
      first.overheadMs.push(viaSw.firstEventMs - local.firstEventMs);
      first.pageMs.push(viaSw.firstEventMs);
      first.localMs.push(local.firstEventMs);
      const localJ = await bench('localJson', smallJson);
      const viaSwJ = await bench('pageJson', smallJson);
      if (viaSwJ.status !== 200 || viaSwJ.outputText !== 'You said: hello there') {
        throw new Error('json: wrong answer');
      }
      json.overheadMs.push(viaSwJ.totalMs - localJ.totalMs);
      json.pageMs.push(viaSwJ.totalMs);
      json.localMs.push(localJ.totalMs);
    }
    out.first_event_overhead_ms = {
      ...stats(first.overheadMs),
      target: 5,
      page_ms: stats(first.pageMs),
      worker_ms: stats(first.localMs),
    };
    out.json_request_overhead_ms = {
      ...stats(json.overheadMs),
      page_ms: stats(json.pageMs),
      worker_ms: stats(json.localMs),
    };
  }

  if (runs('concurrent')) {
    // Eight streams at once, each echoing its own text.
    log(`${CONCURRENT} concurrent streams …`);
    const conc = { totalMs: [], perStreamTps: [], aggregateTps: [] };
    const bodies = [];
    const expectedTexts = [];
    for (let k = 0; k < CONCURRENT; k++) {
      const text = Array.from({ length: CONCURRENT_WORDS }, (_, i) => `s${k}w${i + 1}`).join(' ');
      bodies.push({ model: 'scripted', input: text, stream: true });
      expectedTexts.push(`You said: ${text}`);
    }
    const tokens = CONCURRENT_WORDS + 2;
    for (let i = 0; i < Math.max(3, Math.ceil(RUNS / 2)); i++) {
      const { totalMs, reads } = await bench('concurrent', bodies);
      reads.forEach((r, k) => {
        checkStream(r, expectedTexts[k], `concurrent stream ${k}`);
      });
      if (new Set(reads.flatMap((r) => r.responseIds)).size !== CONCURRENT) {
        throw new Error('concurrent: response ids shared between streams');
      }
      conc.totalMs.push(totalMs);
      for (const r of reads) conc.perStreamTps.push(tokens / (r.totalMs / 1000));
      conc.aggregateTps.push((tokens * CONCURRENT) / (totalMs / 1000));
    }
    out.concurrent_streams = {
      streams: CONCURRENT,
      tokens_per_stream: tokens,
      all_correct: true,
      total_ms: stats(conc.totalMs, 1),
      per_stream_tokens_per_s: stats(conc.perStreamTps, 0),
      aggregate_tokens_per_s: stats(conc.aggregateTps, 0),
    };
  }

  if (runs('cold')) {
    // The service worker is stopped, so the next fetch restarts it and re-acquires a port.
    log('cold start …');
    const cdp = await page.context().newCDPSession(page);
    const status = new Map();
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      for (const v of versions) status.set(v.versionId, v.runningStatus);
    });
    await cdp.send('ServiceWorker.enable');
    const cold = [];
    const asked0 = await bench('needPorts');
    for (let i = 0; i < RUNS; i++) {
      await cdp.send('ServiceWorker.stopAllWorkers');
      const deadline = Date.now() + 5_000;
      const anyRunning = () => [...status.values()].some((s) => s !== 'stopped');
      while (anyRunning() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      if (anyRunning()) throw new Error('service worker did not stop');
      await new Promise((r) => setTimeout(r, 200));
      const read = await bench('pageStream', small);
      if (read.lastType !== 'response.completed') throw new Error(`cold start: ended with ${read.lastType}`);
      cold.push(read.firstEventMs);
    }
    const asked = (await bench('needPorts')) - asked0;
    if (asked < RUNS)
      throw new Error(`cold start: only ${asked} of ${RUNS} restarts asked the page for a port`);
    await cdp.detach();
    out.cold_start_ms = { ...stats(cold, 1), target: 150, need_port_requests: asked };
  }

  if (runs('heap')) {
    // Engine-worker heap while one 100k-token response streams to the page, sampled over CDP.
    log(`worker heap over ${HEAP_TOKENS} tokens …`);
    const worker = await workerSession(browser, page);
    await worker.send('HeapProfiler.enable');
    const usedMb = async () => (await worker.send('Runtime.getHeapUsage')).usedSize / 2 ** 20;
    const heapRun = async (body) => {
      await worker.send('HeapProfiler.collectGarbage');
      const base = await usedMb();
      let peak = base;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await usedMb());
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const read = await bench('pageStream', body);
      sampling = false;
      await sampler;
      if (read.deltas !== HEAP_TOKENS || read.lastType !== 'response.completed')
        throw new Error('heap: bad stream');
      await worker.send('HeapProfiler.collectGarbage');
      const after = await usedMb();
      const scale = 100_000 / HEAP_TOKENS;
      return { peak: (peak - base) * scale, retained: (after - base) * scale };
    };
    const heapStored = [];
    const heapUnstored = [];
    for (let i = 0; i < 3; i++) {
      heapStored.push(await heapRun({ model: 'scripted', input: `!words ${HEAP_TOKENS}`, stream: true }));
      heapUnstored.push(
        await heapRun({ model: 'scripted', input: `!words ${HEAP_TOKENS}`, stream: true, store: false }),
      );
    }
    await worker.detach();
    out.worker_heap_growth_mb_per_100k_tokens = {
      ...stats(
        heapStored.map((h) => h.peak),
        2,
      ),
      max: round(Math.max(...heapStored.map((h) => h.peak)), 2),
      target: 32,
      measured:
        'peak Runtime.getHeapUsage usedSize of the engine worker while one stored 100k-token response streams to the page, minus its post-GC baseline',
      retained_after_gc_mb: stats(
        heapStored.map((h) => h.retained),
        2,
      ),
      store_false_peak_mb: stats(
        heapUnstored.map((h) => h.peak),
        2,
      ),
    };
  }
  return out;
}

/** Keys in the issue's order, environment first. */
function ordered(r) {
  const { environment, ...rest } = r;
  return { environment, ...rest };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
