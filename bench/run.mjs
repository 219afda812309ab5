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
 * .tmp/bench-dist), BENCH_NO_MINIFY=1 (for profiling), BENCH_TRACE_DIR=dir (keep the blocks figure's traces), BENCH_WLLAMA_THREADS=N (llama.cpp threads on both sides), BENCH_WLLAMA_WASM=stock (wllama's own wasm on the curve's direct side), BENCH_ONLY=sse,floor,first,concurrent,cold,heap,blocks,bytes,wllama,vector,hosted,remote,mcp,pyodide (a subset, for profiling; the
 * results file then holds only those figures); BENCH_ONLY=wllama-quants (not in the default run: Q4_K_M, Q4_0, Q6_K
 * against native, bench/wllama-quants.mjs).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { build, preview } from 'vite';
import { ensureTestModel } from '../scripts/build-test-gguf.mjs';
import { ensureQuantized, QUANT_TYPES, quantFile } from '../scripts/llama-quantize.mjs';
import { measureBlocks } from './blocks.mjs';
import { measureFileSearchTurn, measureIngestInPage, measurePdfText } from './file-search.mjs';
import { measureMcp } from './mcp.mjs';
import { measurePyodide } from './pyodide.mjs';
import { measureRemote } from './remote.mjs';
import { round, stats } from './stats.mjs';
import { table } from './table.mjs';
import { measureTransport } from './transport.mjs';
import { measureInt8Scan } from './vector-int8.mjs';
import { measureVectorFigures } from './vector-scan.mjs';
import { measureScriptedBytes, measureWllama, scriptBytesPlugin } from './wllama.mjs';
import { curveResults, curveTable, measureCurve } from './wllama-curve.mjs';
import { measureQuantsNative, measureQuantsWasm, quantsResults } from './wllama-quants.mjs';
import { measureSettings } from './wllama-settings.mjs';

const root = resolve(import.meta.dirname, '..');
const outDir = resolve(root, '.tmp/bench-dist');
const resultsPath = resolve(root, 'bench/results.json');

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** Runs per point of the llama.cpp cost curve (issue 23 asks for medians of at least 5). */
const CURVE_RUNS = Number(process.env.BENCH_CURVE_RUNS ?? 5);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 20_000);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const runs = (section) => !ONLY || ONLY.has(section);

/** Debian's Chromium with the e2e harness's flags (tests/chromium.json). Never `playwright install`. */
const CHROMIUM = JSON.parse(readFileSync(new URL('../tests/chromium.json', import.meta.url), 'utf8'));

const log = (...args) => console.error('[bench]', ...args);

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
  // What the figures measure: the commit built (BENCH_SKIP_BUILD reuses a build, maybe an older one).
  writeFileSync(resolve(outDir, BUILD_STAMP), `${JSON.stringify(buildStamp())}\n`);
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

/** Where a bench build records the commit it was built from (read back by {@link builtFrom}). */
const BUILD_STAMP = 'intab-bench-build.json';

function buildStamp() {
  return { git_commit: git(['rev-parse', 'HEAD']), git_dirty: (git(['status', '--porcelain']) ?? '') !== '' };
}

/**
 * The commit the served build was made from, and whether it is the one checked out now: a figure of
 * a reused build (BENCH_SKIP_BUILD) from another commit is `stale` (issue 36: a 297.2 kB figure was
 * taken before the commits it was reported for).
 */
function builtFrom() {
  let built = null;
  try {
    built = JSON.parse(readFileSync(resolve(outDir, BUILD_STAMP), 'utf8'));
  } catch {}
  const now = buildStamp();
  const stale = !built || built.git_commit !== now.git_commit || built.git_dirty || now.git_dirty;
  if (stale) log(`the build measured is not of HEAD as it is now (built: ${JSON.stringify(built)})`);
  return {
    build_commit: built?.git_commit ?? null,
    build_dirty: built?.git_dirty ?? null,
    stale_build: stale,
  };
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
    const results = await measureTransport(bench, browser, page, { RUNS, TOKENS, runs, stats, log });
    if (runs('blocks'))
      results.max_event_loop_block_ms = await measureBlocks(bench, { browser, page, runs: RUNS, log });
    if (runs('bytes')) {
      log('JavaScript of a scripted-only page load …');
      results.scripted_page_js_kb = {
        ...(await measureScriptedBytes(browser, baseUrl, outDir)),
        ...builtFrom(),
      };
    }
    if (runs('wllama')) {
      const wpage = await (await browser.newContext({ baseURL: baseUrl })).newPage();
      wpage.on('pageerror', (e) => consoleLines.push(`wllama pageerror: ${e.message}`));
      // BENCH_WLLAMA_THREADS=1 takes llama.cpp's threads out of the comparison on a busy machine.
      const threads = process.env.BENCH_WLLAMA_THREADS;
      await wpage.goto(`/bench/wllama.html${threads ? `#threads=${threads}` : ''}`);
      Object.assign(results, await measureWllama(wpage, { runs: RUNS }));
      await wpage.context().close();
    }
    if (runs('wllama-curve')) {
      // The cost curve at intab's defaults, then native llama.cpp with the browser's instances gone.
      const cpage = await (await browser.newContext({ baseURL: baseUrl })).newPage();
      cpage.on('pageerror', (e) => consoleLines.push(`wllama pageerror: ${e.message}`));
      // BENCH_WLLAMA_WASM=stock: wllama's own wasm on the direct side (the figures before issue 34).
      await cpage.goto(`/bench/wllama.html${process.env.BENCH_WLLAMA_WASM === 'stock' ? '#wasm=stock' : ''}`);
      // BENCH_CURVE_MODEL=tiny: a quick check of the machinery (the figures are the bench model's).
      const model = process.env.BENCH_CURVE_MODEL ?? 'bench';
      const curve = await measureCurve(cpage, { runs: CURVE_RUNS, model });
      await cpage.context().close();
      const { path } = await ensureTestModel(model);
      Object.assign(results, await curveResults(curve, path, { runs: CURVE_RUNS }));
    }
    if (ONLY?.has('wllama-settings')) {
      // Not in the default run (~15 minutes): the study behind the llama.cpp defaults.
      const spage = await (await browser.newContext({ baseURL: baseUrl })).newPage();
      await spage.goto('/bench/wllama.html');
      const only = process.env.BENCH_SETTINGS ? process.env.BENCH_SETTINGS.split(',') : null;
      results.wllama_settings = await measureSettings(spage, { runs: CURVE_RUNS, only });
      await spage.context().close();
    }
    if (ONLY?.has('wllama-quants')) {
      // Not in the default run (bench/wllama-quants.mjs): Q4_K_M, Q4_0, Q6_K made by llama-quantize.
      const paths = {};
      mkdirSync(resolve(outDir, 'test-models'), { recursive: true });
      for (const type of QUANT_TYPES) {
        paths[type] = (await ensureQuantized(type)).path;
        copyFileSync(paths[type], resolve(outDir, 'test-models', quantFile(type)));
      }
      const qpage = await (await browser.newContext({ baseURL: baseUrl })).newPage();
      await qpage.goto('/bench/wllama.html');
      const { threads, points } = await measureQuantsWasm(qpage, { types: QUANT_TYPES, runs: CURVE_RUNS });
      await qpage.context().close();
      const native = await measureQuantsNative(paths, { threads, runs: CURVE_RUNS });
      Object.assign(results, quantsResults({ threads, runs: CURVE_RUNS, wasm: points, native }));
    }
    if (runs('vector')) Object.assign(results, await measureVectorFigures({ root, runs: RUNS, stats, log }));
    if (runs('remote')) Object.assign(results, await measureRemote({ runs: RUNS, log, root, stats }));
    if (runs('mcp')) Object.assign(results, await measureMcp({ runs: RUNS, log, root, stats }));
    if (runs('pyodide'))
      Object.assign(
        results,
        await measurePyodide(page, {
          runs: RUNS,
          log,
          stats,
          baseUrl,
          launchPersistent: (dir) => chromium.launchPersistentContext(dir, { ...CHROMIUM, baseURL: baseUrl }),
        }),
      );
    if (runs('hosted')) {
      results.pdf_text_ms_per_page = await measurePdfText({ root, page, runs: RUNS, stats, log });
      results.ingest_ms_per_mb_in_chromium = await measureIngestInPage({ page, runs: 3, stats, log });
      results.file_search_turn_ms = await measureFileSearchTurn({ root, runs: RUNS, stats, log });
      results.vector_scan_int8_ms = await measureInt8Scan({ root, runs: RUNS, stats, log });
    }
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
    if (results.wllama_curve) console.log(`\n${curveTable(results)}`);
    log(`wrote ${resultsPath} in ${results.environment.bench_seconds} s`);
  } finally {
    await browser.close().catch(() => {});
    await server.close();
  }
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
