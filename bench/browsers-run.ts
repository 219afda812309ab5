/**
 * `npm run bench:browsers` (entry: bench/browsers.mjs): decode tokens/s of the ~93M bench GGUF
 * through intab's public API in every browser of the matrix (tests/browsers/): Chromium, Firefox
 * ESR, WebKitGTK as shipped and WebKitGTK Safari-like, one after another (one browser at a time on
 * a 2-core machine). A bench figure, not a test: a browser that fails is a row with its error.
 *
 * Per browser: a fresh session opens the production app (startIntab on the e2e options page, the
 * bench GGUF registered by URL, served from the same origin), one streamed create loads the model
 * and warms up, then RUNS greedy streamed creates are timed in the page (bench/browsers-page.ts);
 * `GET /v1/models` says which llama.cpp wasm, how many threads and which weight cache ran them.
 *
 * Options (environment): BENCH_BROWSERS=chromium,firefox,webkit,webkit-safari (a subset; the other
 * rows of bench/browsers-results.json are kept), BENCH_RUNS (default 5), BENCH_SKIP_BUILD=1,
 * BENCH_THREADS=N (llama.cpp's threads; default intab's own choice; `threads_requested` in the row).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { build } from 'vite';
import { ensureTestModel } from '../scripts/build-test-gguf.mjs';
import { servePreview } from '../tests/browsers/builds';
import { launchChromiumSession } from '../tests/browsers/drivers/chromium';
import { launchFirefox } from '../tests/browsers/drivers/firefox';
import type { BrowserSession, Json, Tab } from '../tests/browsers/drivers/types';
import { launchWebKit } from '../tests/browsers/drivers/webkit';
import { type Answer, callJson, pageFacts, waitReady } from '../tests/browsers/page-fns';
import { type TimedRun, timedStream } from './browsers-page';
import { quantile } from './stats.mjs';

const root = resolve(import.meta.dirname, '..');
const outDir = resolve(root, '.tmp/bench-browsers-dist');
const resultsPath = resolve(root, 'bench/browsers-results.json');

const MODEL = 'bench';
const MODEL_URL = '/test-models/intab-bench-q8_0.gguf';
/** BENCH_THREADS=N pins llama.cpp's threads (the model's `threads`); unset, intab picks them. */
const THREADS = process.env.BENCH_THREADS ? Number(process.env.BENCH_THREADS) : undefined;
const SPEC = {
  id: MODEL,
  url: MODEL_URL,
  label: 'intab bench q8_0',
  ...(THREADS ? { threads: THREADS } : {}),
};
/** The e2e page that starts intab with the options in its hash, as an app passes them. */
const PAGE = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify({ wllama: { models: [SPEC] } }))}`;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TOKENS = 64;
const PROMPT = 'Write a short story about a lighthouse keeper.';
/** Bounds, each naming its wait. The first create fetches ~110 MB, stores it and compiles the wasm. */
const READY_MS = 90_000;
const LOAD_MS = 480_000;
/** Safari-like WebKitGTK took up to ~130 s for 64 tokens on 2 loaded cores (0.5–1 tok/s, 3 threads). */
const RUN_MS = 420_000;

export const BROWSERS: Record<string, { name: string; launch: () => Promise<BrowserSession> }> = {
  chromium: { name: 'Chromium', launch: launchChromiumSession },
  firefox: { name: 'Firefox ESR', launch: launchFirefox },
  webkit: { name: 'WebKitGTK (as shipped)', launch: () => launchWebKit({ safariLike: false }) },
  'webkit-safari': { name: 'WebKitGTK (Safari-like)', launch: () => launchWebKit({ safariLike: true }) },
};

/** One browser's figures, or its error. */
export interface Row {
  key: string;
  browser: string;
  version: string;
  wasm: string | null;
  threads: number | null;
  threads_requested: number | null;
  model_cache: string | null;
  decode_tok_s: { median: number; min: number; max: number; runs: number[] } | null;
  output_tokens: number[];
  deltas: number[];
  first_token_ms: number[];
  /** The first timed run's text (greedy: every build should decode the same), cut to 120 chars. */
  text_sample: string | null;
  load_ms: number | null;
  /** The machine's 1-minute load average before the timed runs: the cores are shared. */
  loadavg: number | null;
  page: Json | null;
  error: string | null;
  seconds: number;
  /** What the served build was made from (its stamp), not what is checked out when the row ran. */
  git_commit: string | null;
  git_dirty: boolean;
  date: string;
}

const log = (...args: unknown[]) => console.error('[bench:browsers]', ...args);
const round = (v: number, d = 2) => Number(v.toFixed(d));
/** The bench's one quantile rule (nearest rank, bench/stats.mjs). */
const median = (xs: number[]): number => quantile(xs, 0.5);

function git(args: string[]): string | null {
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

/** Where a build records the commit it was made from (BENCH_SKIP_BUILD reuses an older build). */
const STAMP = 'intab-bench-build.json';
type Stamp = Pick<Row, 'git_commit' | 'git_dirty'>;

/** The app plus the e2e options page, and the bench GGUF beside the tiny one (same origin). */
async function buildSite(): Promise<void> {
  // Other commits may land while the browsers run: each row names the tree the build was made from.
  const stamp = {
    git_commit: git(['rev-parse', 'HEAD']),
    git_dirty: (git(['status', '--porcelain']) ?? '') !== '',
  };
  log('building the app and the options page into .tmp/bench-browsers-dist …');
  await build({
    root,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      rolldownOptions: {
        input: {
          main: resolve(root, 'index.html'),
          options: resolve(root, 'tests/e2e/pages/options.html'),
        },
      },
    },
  });
  const { path, built } = await ensureTestModel('bench');
  if (built) log(`built ${path}`);
  mkdirSync(resolve(outDir, 'test-models'), { recursive: true });
  copyFileSync(path, resolve(outDir, `.${MODEL_URL}`));
  writeFileSync(resolve(outDir, STAMP), `${JSON.stringify(stamp)}\n`);
}

/** One streamed greedy create; throws with the run's error unless it decoded at least 2 deltas. */
async function generate(tab: Tab, input: string, ms: number): Promise<TimedRun> {
  const body = { model: MODEL, input, temperature: 0, max_output_tokens: TOKENS, store: false };
  const run = await tab.evaluate(timedStream, { body, ms }, ms + 15_000);
  if (run.status !== 200 || run.error || !/^response\.(completed|incomplete)$/.test(run.ending)) {
    throw new Error(`create answered HTTP ${run.status}, ${run.ending || 'no terminal event'}: ${run.error}`);
  }
  if (run.deltas < 2) throw new Error(`create decoded ${run.deltas} text deltas: too few to time`);
  return run;
}

/** Decode tokens/s: the tokens after the first over the span from the first delta to the last. */
const decodeRate = (run: TimedRun) =>
  ((run.outputTokens > 0 ? run.outputTokens : run.deltas) - 1) / ((run.lastMs - run.firstMs) / 1000);

async function benchBrowser(key: string, baseUrl: string, stamp: Stamp): Promise<Row> {
  const { name, launch } = BROWSERS[key] as (typeof BROWSERS)[string];
  const started = Date.now();
  const row: Row = {
    key,
    browser: name,
    version: '',
    wasm: null,
    threads: null,
    threads_requested: THREADS ?? null,
    model_cache: null,
    decode_tok_s: null,
    output_tokens: [],
    deltas: [],
    first_token_ms: [],
    text_sample: null,
    load_ms: null,
    loadavg: null,
    page: null,
    error: null,
    seconds: 0,
    ...stamp,
    date: new Date().toISOString(),
  };
  let session: BrowserSession | undefined;
  let tab: Tab | undefined;
  let stage = 'launching the browser';
  try {
    session = await launch();
    row.version = session.version;
    log(`${name}: ${session.version}`);
    stage = 'opening the app';
    tab = await session.newTab();
    await tab.goto(`${baseUrl}${PAGE}`);
    stage = 'waiting for intab to be ready';
    await tab.evaluate(waitReady, { ms: READY_MS }, READY_MS + 15_000);
    row.page = (await tab.evaluate(pageFacts, null)) as Json;
    stage = 'loading the bench model (the warm-up create)';
    const t0 = Date.now();
    await generate(tab, `${PROMPT} (warm-up)`, LOAD_MS);
    row.load_ms = Date.now() - t0;
    stage = 'reading GET /v1/models';
    const models: Answer = await tab.evaluate(
      callJson,
      { method: 'GET', path: '/v1/models', ms: 30_000 },
      45_000,
    );
    const entry = ((models.body as { data?: Record<string, Json>[] }).data ?? []).find((m) => m.id === MODEL);
    if (!entry)
      throw new Error(`/v1/models (HTTP ${models.status}) has no '${MODEL}': ${JSON.stringify(models.body)}`);
    // The wire name is snake_case; the camelCase one is ModelInfo's, in case a listing passes it through.
    row.wasm = (entry.wasm as string) ?? null;
    row.threads = (entry.threads as number) ?? null;
    row.model_cache = ((entry.model_cache ?? entry.modelCache) as string) ?? null;
    log(`${name}: loaded in ${row.load_ms} ms: ${JSON.stringify(entry)}`);
    row.loadavg = round(os.loadavg()[0] ?? 0);
    const rates: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      stage = `timed run ${i + 1} of ${RUNS}`;
      const run = await generate(tab, PROMPT, RUN_MS);
      rates.push(round(decodeRate(run)));
      row.output_tokens.push(run.outputTokens);
      row.deltas.push(run.deltas);
      row.first_token_ms.push(round(run.firstMs, 1));
      row.text_sample ??= run.text.slice(0, 120);
      log(`${name}: run ${i + 1}: ${rates.at(-1)} tok/s (${run.outputTokens} tokens, ${run.deltas} deltas)`);
    }
    row.decode_tok_s = {
      median: median(rates),
      min: Math.min(...rates),
      max: Math.max(...rates),
      runs: rates,
    };
  } catch (err) {
    const pageLog = tab?.log.slice(-15).join('\n') ?? '';
    row.error = `${stage}: ${err instanceof Error ? err.message : err}${pageLog ? `\npage log:\n${pageLog}` : ''}`;
    log(`${name} failed: ${row.error}`);
  } finally {
    await session?.close();
  }
  row.seconds = Math.round((Date.now() - started) / 1000);
  return row;
}

function printTable(rows: Row[]): void {
  const head = ['browser', 'wasm', 'threads', 'model_cache', 'tok/s median', 'min', 'max'];
  const lines = rows.map((r) =>
    r.decode_tok_s
      ? [
          r.browser,
          r.wasm,
          r.threads,
          r.model_cache,
          r.decode_tok_s.median,
          r.decode_tok_s.min,
          r.decode_tok_s.max,
        ]
      : [r.browser, r.wasm, r.threads, r.model_cache, 'failed', '', ''],
  );
  const cells = [head, ...lines].map((l) => l.map((c) => String(c ?? '—')));
  const widths = head.map((_, i) => Math.max(...cells.map((l) => (l[i] as string).length)));
  for (const [n, l] of cells.entries()) {
    console.log(l.map((c, i) => (i < 4 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '));
    if (n === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  for (const r of rows) if (r.error) console.log(`\n${r.browser}: ${r.error}`);
}

/** Runs the bench; answers the process's exit code (1 when every browser failed). */
export async function main(): Promise<number> {
  const keys = (process.env.BENCH_BROWSERS ?? Object.keys(BROWSERS).join(',')).split(',').filter(Boolean);
  const unknown = keys.filter((k) => !(k in BROWSERS));
  if (unknown.length) throw new Error(`BENCH_BROWSERS: unknown ${unknown}; one of ${Object.keys(BROWSERS)}`);
  const started = Date.now();
  if (!process.env.BENCH_SKIP_BUILD || !existsSync(resolve(outDir, `.${MODEL_URL}`))) await buildSite();
  const stamp: Stamp = existsSync(resolve(outDir, STAMP))
    ? JSON.parse(readFileSync(resolve(outDir, STAMP), 'utf8'))
    : { git_commit: null, git_dirty: true };
  const site = await servePreview(outDir);
  const rows: Row[] = [];
  try {
    for (const key of keys) rows.push(await benchBrowser(key, site.baseUrl, stamp));
  } finally {
    await site.server.close();
  }
  // A subset re-measures its rows and keeps the others' (each row carries its own commit and date).
  const before: Row[] = existsSync(resolve(resultsPath))
    ? (JSON.parse(readFileSync(resultsPath, 'utf8')).rows ?? [])
    : [];
  const merged = Object.keys(BROWSERS)
    .map((k) => rows.find((r) => r.key === k) ?? before.find((r) => r.key === k))
    .filter((r): r is Row => r !== undefined);
  const results = {
    measured: `decode tokens/s of ${TOKENS} greedy tokens (temperature 0) of ${MODEL_URL} (~93M parameters, Q8_0) through POST /v1/responses (stream: true) in the page; per browser one warm-up create (it loads the model), then ${RUNS} timed runs: (usage.output_tokens - 1) over the time from the first output_text delta to the last, as the page's reader got them; median, min, max`,
    prompt: PROMPT,
    machine: { cpus: os.cpus().length, loadavg_at_end: os.loadavg().map((v) => round(v)) },
    wall_seconds: Math.round((Date.now() - started) / 1000),
    rows: merged,
  };
  writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  printTable(merged);
  console.log(`\nwrote ${resultsPath} in ${results.wall_seconds} s`);
  return rows.every((r) => r.error) ? 1 : 0;
}
