/**
 * The llama.cpp cost curve of `npm run bench` (issue 23): prefill and decode tokens/s of the ~93M
 * bench GGUF after prompts of ~128, ~1k and ~4k tokens, through intab and through wllama called
 * directly in the same page (interleaved, same prompts), each a median of ≥ 5 runs with p25/p75 and
 * the CPU pressure read during the runs, then native llama.cpp on the same GGUF at the same threads.
 *
 * Keys it adds to results.json: `decode_tok_s_{128,1k,4k}` (through intab, intab's default threads),
 * `decode_4k_over_128`, `wllama_vs_native_{decode,prefill}_{128,1k,4k}` (wllama direct ÷ native at
 * equal threads), `wllama_intab_over_direct_{128,1k,4k}` and `wllama_curve` (every figure behind them).
 */
import { loadNodeLlamaCpp, measureNativeCurve, NODE_LLAMA_CPP_VERSION } from './native.mjs';
import { prompt } from './prompts.mjs';
import { pressureNow, pressureWatch, round, spread } from './spread.mjs';

const log = (...args) => console.error('[bench]', ...args);
export const SIZES = [128, 1024, 4096];
const LABEL = { 128: '128', 1024: '1k', 4096: '4k' };
/** Greedy tokens decoded after each prompt (the decode figure times tokens 2…N). */
export const DECODE_TOKENS = 32;

/** Prefill and decode tokens/s of one timed run (see wllama-page.ts's `Run`). */
export function rates(r) {
  return {
    prefill: r.promptTokens / (r.firstMs / 1000),
    decode: (r.tokens - 1) / ((r.lastMs - r.firstMs) / 1000),
  };
}

/**
 * One point of a curve: `runs` runs of ~`n`-token prompts through each of `sides` (`{ run(prompt,
 * tokens) => Run, fresh }`), the sides' order alternating run by run so drift in the machine's load
 * falls on both alike. A side's first `fresh` runs read fresh prompts (a prefill sample and a decode
 * sample each); its later runs repeat the last one, which llama.cpp finds in its KV cache, so they
 * only decode (a decode sample at that context without paying the prefill again).
 *
 * @example
 * await curvePoint({ direct: { run: (p, t) => bench('directRun', 'bench', p, t), fresh: 5 } }, 1024, 5, 3001);
 */
export async function curvePoint(sides, n, runs, tag) {
  const names = Object.keys(sides);
  const samples = Object.fromEntries(
    names.map((s) => [s, { prefill: [], decode: [], cached: [], promptTokens: 0 }]),
  );
  const psi = pressureWatch();
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const side of order) {
      const fresh = Math.max(1, Math.min(runs, sides[side].fresh ?? runs));
      const p = prompt(n, tag + Math.min(i, fresh - 1));
      const r = await psi.during(() => sides[side].run(p, DECODE_TOKENS));
      if (!(r.tokens > 1)) throw new Error(`${side} @${n}: ${r.tokens} tokens decoded`);
      const { prefill, decode } = rates(r);
      const s = samples[side];
      if (i < fresh) s.prefill.push(prefill);
      else s.cached.push(r.cachedTokens ?? null);
      s.decode.push(decode);
      s.promptTokens = r.promptTokens;
    }
  }
  const out = { cpu_pressure: psi.summary() };
  for (const side of names) {
    const s = samples[side];
    out[side] = {
      prompt_tokens: s.promptTokens,
      prefill_tok_s: spread(s.prefill, 1),
      decode_tok_s: spread(s.decode, 2),
      ...(s.cached.length ? { repeats_cached_tokens: s.cached } : {}),
    };
  }
  return out;
}

/**
 * Fresh prompts per point and side; the other runs decode a repeated prompt from the KV cache. At 1
 * thread on 2 cores a fresh 4k prompt takes 45–70 s to read, and the whole of `npm run bench` must
 * stay under 15 minutes: the prefill figures that the native ratios use (direct) get every fresh
 * prompt they can afford, intab gets enough to compare (its prefill is llama.cpp's, and a repeat
 * still decodes through every hop). `BENCH_CURVE_FRESH=all` makes every run fresh (~10 minutes more).
 */
export function freshRuns(side, n, runs) {
  if (process.env.BENCH_CURVE_FRESH === 'all') return runs;
  const table = { intab: { 128: runs, 1024: 1, 4096: 1 }, direct: { 128: runs, 1024: 3, 4096: 3 } };
  return Math.min(runs, table[side][n] ?? runs);
}

/**
 * The curve in the page (intab and direct at intab's default settings), before the browser closes.
 *
 * @example
 * const curve = await measureCurve(page, { runs: 5 });
 */
export async function measureCurve(page, { runs = 5, model = 'bench' } = {}) {
  const bench = (name, ...args) => page.evaluate(([n, a]) => window.wllamaBench[n](...a), [name, args]);
  await page.evaluate(() => window.wllamaBench.ready);
  const { threads } = await bench('threads');
  await bench('loadIntab', model);
  await bench('loadDirect', model);
  const points = {};
  for (const n of SIZES) {
    log(`wllama curve @${n} tokens × ${runs} (intab and direct) … ${pressureNow()}`);
    points[n] = await curvePoint(
      {
        intab: { run: (p, t) => bench('intabRun', model, p, t), fresh: freshRuns('intab', n, runs) },
        direct: { run: (p, t) => bench('directRun', model, p, t), fresh: freshRuns('direct', n, runs) },
      },
      n,
      runs,
      3000 + n,
    );
    log(
      `  intab ${points[n].intab.prefill_tok_s.median} / ${points[n].intab.decode_tok_s.median} tok/s, direct ${points[n].direct.prefill_tok_s.median} / ${points[n].direct.decode_tok_s.median}`,
    );
  }
  await bench('unloadDirect', model);
  return { threads, model, points };
}

/**
 * Native llama.cpp at the wasm side's threads (browser closed), and the keys of results.json.
 *
 * @example
 * Object.assign(results, await curveResults(curve, modelPath, { runs: 5 }));
 */
export async function curveResults({ threads, model, points }, modelPath, { runs = 5 } = {}) {
  const native = await loadNodeLlamaCpp();
  let nativePoints = null;
  if ('lib' in native) {
    log(
      `native llama.cpp (node-llama-cpp ${NODE_LLAMA_CPP_VERSION}) at ${threads} thread(s) … ${pressureNow()}`,
    );
    nativePoints = await measureNativeCurve(native.lib, modelPath, {
      threads,
      sizes: SIZES,
      runs,
      decodeTokens: DECODE_TOKENS,
      // intab's CPU_ATTENTION (src/engine/wllama/wllama-instance.ts): equal settings on both sides.
      flashAttention: false,
      kvType: 'F32',
    });
  }
  const out = {};
  for (const n of SIZES) {
    out[`decode_tok_s_${LABEL[n]}`] = {
      ...points[n].intab.decode_tok_s,
      cpu_pressure: points[n].cpu_pressure,
    };
  }
  const d4 = points[4096].intab.decode_tok_s;
  const d128 = points[128].intab.decode_tok_s;
  out.decode_4k_over_128 = round(d4.median / d128.median, 3);
  for (const n of SIZES) {
    const ratio = (a, b) => round(a / b, 3);
    out[`wllama_intab_over_direct_${LABEL[n]}`] = {
      decode: ratio(points[n].intab.decode_tok_s.median, points[n].direct.decode_tok_s.median),
      prefill: ratio(points[n].intab.prefill_tok_s.median, points[n].direct.prefill_tok_s.median),
    };
  }
  for (const kind of ['decode', 'prefill']) {
    for (const n of SIZES) {
      const key = `wllama_vs_native_${kind}_${LABEL[n]}`;
      out[key] = nativePoints
        ? round(points[n].direct[`${kind}_tok_s`].median / nativePoints[n][`${kind}_tok_s`].median, 3)
        : { skipped: native.skipped };
    }
  }
  out.wllama_curve = {
    model: model === 'bench' ? 'intab-bench-q8_0 (~93M parameters, Q8_0)' : `intab test model '${model}'`,
    threads,
    measured: `${runs} runs per size and side, ${DECODE_TOKENS} greedy tokens each, intab (Responses SSE via the service worker) and wllama direct interleaved; fresh prompts as in wllama-curve.mjs's freshRuns (prefill_tok_s.runs says how many), the other runs repeating the last one, decoded from llama.cpp's KV cache (repeats_cached_tokens); prefill = prompt tokens / time to first token; decode = tokens 2…N / their time; cpu_pressure: share of each run's wall time in which some task waited for a CPU (/proc/pressure/cpu), median and max over the runs`,
    wasm: points,
    native: nativePoints ?? { skipped: native.skipped },
    native_settings: `node-llama-cpp ${NODE_LLAMA_CPP_VERSION}, ${threads} thread(s), flash attention off, f32 KV cache, batch 512 (intab's CPU defaults)`,
  };
  return out;
}

/**
 * The curve as `npm run bench` prints it, below the main table: one column per prompt size.
 *
 * @example
 * console.log(curveTable(results));
 */
export function curveTable(r) {
  const c = r.wllama_curve;
  if (!c) return '';
  const cell = (s) => (s ? `${s.median} (${s.p25}–${s.p75})` : '–');
  const at = (n, f) => f(c.wasm[n], c.native?.[n]);
  const rows = [
    ['decode tok/s, intab (p25–p75)', (w) => cell(w.intab.decode_tok_s)],
    ['decode tok/s, wllama direct', (w) => cell(w.direct.decode_tok_s)],
    ['prefill tok/s, intab', (w) => cell(w.intab.prefill_tok_s)],
    ['prefill tok/s, wllama direct', (w) => cell(w.direct.prefill_tok_s)],
    [
      'decode / prefill tok/s, native',
      (_, nat) => (nat ? `${nat.decode_tok_s.median} / ${nat.prefill_tok_s.median}` : '–'),
    ],
    ['wllama ÷ native, decode', (_, __, n) => fmt(r[`wllama_vs_native_decode_${LABEL[n]}`])],
    ['wllama ÷ native, prefill', (_, __, n) => fmt(r[`wllama_vs_native_prefill_${LABEL[n]}`])],
    ['intab ÷ direct, decode (≥ 0.97)', (_, __, n) => fmt(r[`wllama_intab_over_direct_${LABEL[n]}`]?.decode)],
    [
      'CPU pressure, some % (median / max)',
      (w) => `${w.cpu_pressure.some_pct_median} / ${w.cpu_pressure.some_pct_max}`,
    ],
  ].map(([name, f]) => [name, ...SIZES.map((n) => at(n, (w, nat) => f(w, nat, n)))]);
  rows.unshift([`llama.cpp, bench model, ${c.threads} thread(s)`, ...SIZES.map((n) => `${LABEL[n]} prompt`)]);
  const widths = rows[0].map((_, k) => Math.max(...rows.map((row) => String(row[k]).length)));
  const line = (row) => `| ${row.map((v, k) => String(v).padEnd(widths[k])).join(' | ')} |`;
  const d4 = r.decode_tok_s_4k;
  return [
    line(rows[0]),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
    '',
    `decode_tok_s_4k ${d4.median} (p25 ${d4.p25}; target ≥ 7, p25 ≥ 5: ${d4.median >= 7 && d4.p25 >= 5 ? 'ok' : 'MISSED'}); decode_4k_over_128 ${r.decode_4k_over_128} (target ≥ 0.25: ${r.decode_4k_over_128 >= 0.25 ? 'ok' : 'MISSED'})`,
  ].join('\n');
}

function fmt(v) {
  if (v === undefined || v === null) return '–';
  return typeof v === 'object' ? `skipped (${v.skipped})` : String(v);
}
