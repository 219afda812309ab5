/**
 * The shape of the bench's quantization figures (issue 47): `wllama_quants` holds, per llama-quantize
 * type, wllama ÷ native medians for decode and prefill at 128 and 1k tokens, and says why where native
 * could not run. The figures themselves come from `BENCH_ONLY=wllama-quants npm run bench`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pageModel, QUANT_SIZES, type QuantPoint, quantsResults } from '../../../bench/wllama-quants.mjs';
import { QUANT_TYPES, quantFile } from '../../../scripts/llama-quantize.mjs';

const point = (prefill: number, decode: number): QuantPoint => ({
  prefill_tok_s: { median: prefill, p25: prefill, p75: prefill, runs: 5 },
  decode_tok_s: { median: decode, p25: decode, p75: decode, runs: 5 },
});

describe('wllama_quants in bench/results.json', () => {
  it("holds each type's four wllama ÷ native medians", () => {
    const wasm = {
      Q4_K_M: { 128: point(343, 75.8), 1024: point(318, 62.7) },
      Q6_K: { 128: point(239, 67.6), 1024: point(233, 57.5) },
    };
    const native = {
      Q4_K_M: { 128: point(2091, 298), 1024: point(1564, 194) },
      Q6_K: { 128: point(1216, 289), 1024: point(1006, 195) },
    };
    const r = quantsResults({ threads: 1, runs: 5, wasm, native });
    expect(r.wllama_quants).toEqual({
      Q4_K_M: { decode_128: 0.254, decode_1k: 0.323, prefill_128: 0.164, prefill_1k: 0.203 },
      Q6_K: { decode_128: 0.234, decode_1k: 0.295, prefill_128: 0.197, prefill_1k: 0.232 },
    });
    expect(r.wllama_quants_curve).toMatchObject({ threads: 1, wasm, native });
  });

  it('says why in place of every ratio when native did not run', () => {
    const wasm = { Q4_0: { 128: point(360, 77), 1024: point(326, 61.8) } };
    const r = quantsResults({ threads: 1, runs: 5, wasm, native: { skipped: 'BENCH_NO_NATIVE is set' } });
    const skipped = { skipped: 'BENCH_NO_NATIVE is set' };
    expect(r.wllama_quants).toEqual({
      Q4_0: { decode_128: skipped, decode_1k: skipped, prefill_128: skipped, prefill_1k: skipped },
    });
  });

  it('measures the types the issue names at 128 and 1k, each a model the bench page serves', () => {
    expect(QUANT_TYPES).toEqual(['Q4_K_M', 'Q4_0', 'Q6_K']);
    expect(QUANT_SIZES).toEqual([128, 1024]);
    // The page runs in a browser only, so its MODELS are read as text.
    const page = readFileSync('bench/wllama-page.ts', 'utf8');
    for (const type of QUANT_TYPES)
      expect(page).toContain(`${pageModel(type)}: '/test-models/${quantFile(type)}',`);
  });
});
