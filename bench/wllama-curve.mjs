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
 * The curve in the page (intab and direct at intab's default settings), before the browser closes.
 *
 * @example
 * const curve = await measureCurve(page, { runs: 5 });
 */
export async function measureCurve(page, { runs = 5 } = {}) {
  const bench = (name, ...args) => page.evaluate(([n, a]) => window.wllamaBench[n](...a), [name, args]);
  await page.evaluate(() => window.wllamaBench.ready);
  const { threads } = await bench('threads');
  await bench('loadIntab', 'bench');
  await bench('loadDirect', 'bench');
  const points = {};
  for (const n of SIZES) {
    log(`wllama curve @${n} tokens × ${runs} (intab and direct) … ${pressureNow()}`);
    points[n] = await curvePoint(
      {
        // A fresh 4k prompt takes ~45 s at 1 thread: intab reads one and then decodes from the cache
        // (decode is what intab could change; its prefill is llama.cpp's, as the 128 and 1k points show).
        intab: { run: (p, t) => bench('intabRun', 'bench', p, t), fresh: n >= 4096 ? 1 : runs },
        direct: { run: (p, t) => bench('directRun', 'bench', p, t), fresh: runs },
      },
      n,
      runs,
      3000 + n,
    );
    log(
      `  intab ${points[n].intab.prefill_tok_s.median} / ${points[n].intab.decode_tok_s.median} tok/s, direct ${points[n].direct.prefill_tok_s.median} / ${points[n].direct.decode_tok_s.median}`,
    );
  }
  await bench('unloadDirect', 'bench');
  return { threads, points };
}

/**
 * Native llama.cpp at the wasm side's threads (browser closed), and the keys of results.json.
 *
 * @example
 * Object.assign(results, await curveResults(curve, modelPath, { runs: 5 }));
 */
export async function curveResults({ threads, points }, modelPath, { runs = 5 } = {}) {
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
      flashAttention: 'auto',
      kvType: 'F16',
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
    model: 'intab-bench-q8_0 (~93M parameters, Q8_0)',
    threads,
    measured: `${runs} runs per size and side, ${DECODE_TOKENS} greedy tokens each, intab (Responses SSE via the service worker) and wllama direct interleaved; every run a fresh prompt, except intab at 4k: one fresh prompt, then repeats decoded from llama.cpp's KV cache (repeats_cached_tokens); prefill = prompt tokens / time to first token; decode = tokens 2…N / their time; cpu_pressure: share of each run's wall time in which some task waited for a CPU (/proc/pressure/cpu), median and max over the runs`,
    wasm: points,
    native: nativePoints ?? { skipped: native.skipped },
    native_settings: `node-llama-cpp ${NODE_LLAMA_CPP_VERSION}, ${threads} thread(s), flash attention auto, f16 KV cache, batch 512`,
  };
  return out;
}
