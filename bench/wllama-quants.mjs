/**
 * The bench on the quantizations people download (issue 47): the bench model quantized by llama.cpp's
 * own llama-quantize from its F16 variant into Q4_K_M, Q4_0 and Q6_K (scripts/llama-quantize.mjs),
 * each measured as the Q8_0 curve is (wllama called directly in the bench page with intab's SIMD build,
 * `curvePoint`'s runs) and then natively (node-llama-cpp on the same file, same threads, browser idle).
 *
 * Key it adds to results.json: `wllama_quants: { <type>: { decode_128, decode_1k, prefill_128,
 * prefill_1k } }`, medians of wllama ÷ native (or `{ skipped }` where native could not run), and
 * `wllama_quants_curve` with every figure behind them.
 *
 * Not in the default run (three models × two sizes × two sides, plus a ~7-minute llama-quantize build
 * the first time): `BENCH_ONLY=wllama-quants npm run bench`.
 */
import { loadNodeLlamaCpp, measureNativeCurve, NODE_LLAMA_CPP_VERSION } from './native.mjs';
import { pressureNow, round } from './spread.mjs';
import { curvePoint, DECODE_TOKENS } from './wllama-curve.mjs';

const log = (...args) => console.error('[bench]', ...args);
/** The prompt sizes of the quantization figures (the targets are at 128 and 1k). */
export const QUANT_SIZES = [128, 1024];
const LABEL = { 128: '128', 1024: '1k' };
/** The bench page's model name for a llama-quantize type (bench/wllama-page.ts's MODELS). */
export const pageModel = (type) => type.toLowerCase();

/**
 * Each type's points in the page (wllama direct, one model loaded at a time), before the browser closes.
 *
 * @example
 * const wasm = await measureQuantsWasm(page, { types: ['Q4_K_M'], runs: 5 });
 */
export async function measureQuantsWasm(page, { types, runs = 5 }) {
  const bench = (name, ...args) => page.evaluate(([n, a]) => window.wllamaBench[n](...a), [name, args]);
  await page.evaluate(() => window.wllamaBench.ready);
  const { threads } = await bench('threads');
  const points = {};
  for (const type of types) {
    const model = pageModel(type);
    await bench('loadDirect', model);
    points[type] = {};
    for (const n of QUANT_SIZES) {
      log(`wllama ${type} @${n} tokens × ${runs} … ${pressureNow()}`);
      const direct = { run: (p, t) => bench('directRun', model, p, t), fresh: runs };
      const point = await curvePoint({ direct }, n, runs, 7000 + n);
      points[type][n] = { ...point.direct, cpu_pressure: point.cpu_pressure };
    }
    await bench('unloadDirect', model);
  }
  return { threads, points };
}

/**
 * Native llama.cpp on each type's file at `threads` (run it with the browser closed), or `{ skipped }`.
 *
 * @example
 * const native = await measureQuantsNative({ Q4_K_M: path }, { threads: 1, runs: 5 });
 */
export async function measureQuantsNative(paths, { threads, runs = 5 }) {
  const native = await loadNodeLlamaCpp();
  if (!('lib' in native)) return { skipped: native.skipped };
  const out = {};
  for (const [type, path] of Object.entries(paths)) {
    log(
      `native ${type} (node-llama-cpp ${NODE_LLAMA_CPP_VERSION}) at ${threads} thread(s) … ${pressureNow()}`,
    );
    out[type] = await measureNativeCurve(native.lib, path, {
      threads,
      sizes: QUANT_SIZES,
      runs,
      decodeTokens: DECODE_TOKENS,
      // intab's CPU_ATTENTION, as on the Q8_0 curve: equal settings on both sides.
      flashAttention: false,
      kvType: 'F32',
    });
  }
  return out;
}

/**
 * The results.json keys from both sides' figures: per type, wllama's median ÷ native's median for
 * decode and prefill at each size (3 decimals); `{ skipped }` in place of each ratio when native did
 * not run.
 *
 * @example
 * quantsResults({ threads: 1, runs: 5, wasm, native }).wllama_quants.Q4_K_M.decode_128; // 0.25
 */
export function quantsResults({ threads, runs, wasm, native }) {
  const wllama_quants = {};
  for (const [type, points] of Object.entries(wasm)) {
    const ratios = {};
    for (const kind of ['decode', 'prefill']) {
      for (const n of QUANT_SIZES) {
        const nat = native.skipped ? undefined : native[type]?.[n];
        ratios[`${kind}_${LABEL[n]}`] = nat
          ? round(points[n][`${kind}_tok_s`].median / nat[`${kind}_tok_s`].median, 3)
          : { skipped: native.skipped ?? `no native figure for ${type} @${n}` };
      }
    }
    wllama_quants[type] = ratios;
  }
  return {
    wllama_quants,
    wllama_quants_curve: {
      model: 'intab-bench-f16 quantized by llama.cpp llama-quantize (scripts/llama-quantize.mjs)',
      threads,
      measured: `${runs} fresh runs per size, type and side, ${DECODE_TOKENS} greedy tokens each; wllama direct with intab's SIMD build in the bench page, then node-llama-cpp ${NODE_LLAMA_CPP_VERSION} on the same file (flash attention off, f32 KV cache, batch 512) with the browser idle`,
      wasm,
      native,
    },
  };
}
