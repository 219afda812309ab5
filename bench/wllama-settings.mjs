/**
 * The settings study behind intab's llama.cpp defaults (issue 23), run by
 * `BENCH_ONLY=wllama-settings npm run bench`: wllama called directly in the page (intab adds nothing
 * that grows with context, see `wllama_intab_over_direct_*`), the ~93M bench GGUF after ~128, ~1k
 * and ~4k-token prompts, threads 1 and 2, f16 against f32 KV cache, flash attention on (llama.cpp's
 * `auto`) and off. Every setting is loaded side by side and the runs go round-robin, so a change in
 * the machine's load falls on all of them alike.
 *
 * Each point: `fresh` fresh prompts (a prefill sample and a decode sample each), then repeats of the
 * last prompt up to `runs` decode samples (llama.cpp finds the prompt in its KV cache and only
 * decodes: the decode figure at a 4k context without paying a 4k prefill each time). Not part of the
 * default run: on 2 loaded cores the 4k prefills alone take minutes.
 */

import { prompt } from './prompts.mjs';
import { pressureNow, pressureWatch, spread } from './spread.mjs';
import { rates, SIZES } from './wllama-curve.mjs';

const log = (...args) => console.error('[bench]', ...args);
const DECODE = 16;

const kv = (type) => ({ cache_type_k: type, cache_type_v: type });
/** The settings compared; each names every parameter it is about, so intab's defaults do not leak in. */
export const SETTINGS = {
  '1t_f16_fa': { threads: 1, extra: { ...kv('f16'), flash_attn: true } },
  '2t_f16_fa': { threads: 2, extra: { ...kv('f16'), flash_attn: true } },
  '1t_f32_fa': { threads: 1, extra: { ...kv('f32'), flash_attn: true } },
  '1t_f16_nofa': { threads: 1, extra: { ...kv('f16'), flash_attn: false } },
  '1t_f32_nofa': { threads: 1, extra: { ...kv('f32'), flash_attn: false } },
};

/** Fresh prompts per size: prefill samples are cheap at 128 and 1k, a 4k one costs up to minutes. */
const FRESH = { 128: 3, 1024: 2, 4096: 1 };

/**
 * @example
 * results.wllama_settings = await measureSettings(page, { runs: 5 });
 */
export async function measureSettings(page, { runs = 5, only = null, sizes = SIZES } = {}) {
  const bench = (name, ...args) => page.evaluate(([n, a]) => window.wllamaBench[n](...a), [name, args]);
  await page.evaluate(() => window.wllamaBench.ready);
  const names = Object.keys(SETTINGS).filter((n) => !only || only.includes(n));
  for (const name of names) await bench('loadDirect', 'bench', SETTINGS[name], name);
  const out = {
    measured: `wllama direct in the page, all settings loaded side by side, runs round-robin; per point ${runs} decode samples of ${DECODE} greedy tokens (the first ${JSON.stringify(FRESH)} after fresh prompts, the rest repeating the last prompt from the KV cache) and prefill samples from the fresh prompts; medians with p25/p75; cpu_pressure as in wllama_curve`,
  };
  for (const name of names) out[name] = {};
  for (const n of sizes) {
    log(`settings @${n}: ${names.join(', ')} … ${pressureNow()}`);
    const acc = Object.fromEntries(
      names.map((s) => [s, { prefill: [], decode: [], cached: [], psi: pressureWatch(), promptTokens: 0 }]),
    );
    const fresh = Math.min(FRESH[n] ?? 1, runs);
    for (let i = 0; i < runs; i++) {
      const p = prompt(n, 7000 + n + Math.min(i, fresh - 1));
      // Rotate the order each round: no setting always runs right after the 2-thread one.
      const order = names.map((_, k) => names[(k + i) % names.length]);
      for (const name of order) {
        const a = acc[name];
        const r = await a.psi.during(() => bench('directRun', name, p, DECODE));
        const { prefill, decode } = rates(r);
        if (i < fresh) a.prefill.push(prefill);
        else a.cached.push(r.cachedTokens ?? -1);
        if (r.tokens > 1) a.decode.push(decode);
        a.promptTokens = r.promptTokens;
      }
    }
    for (const name of names) {
      const a = acc[name];
      out[name][n] = {
        prompt_tokens: a.promptTokens,
        prefill_tok_s: spread(a.prefill, 1),
        decode_tok_s: spread(a.decode, 2),
        repeats_cached_tokens: a.cached,
        cpu_pressure: a.psi.summary(),
      };
      log(`  ${name} @${n}: ${JSON.stringify(out[name][n])}`);
    }
  }
  for (const name of names) await bench('unloadDirect', name);
  return out;
}
