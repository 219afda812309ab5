/** Types for bench/wllama-quants.mjs (see there). */
export const QUANT_SIZES: number[];
export function pageModel(type: string): string;
interface Spread {
  median: number;
  [k: string]: unknown;
}
/** One side's figures at one prompt size (curvePoint's or measureNativeCurve's). */
export interface QuantPoint {
  prefill_tok_s: Spread;
  decode_tok_s: Spread;
  [k: string]: unknown;
}
type Points = Record<string, Record<number, QuantPoint>>;
export type Ratio = number | { skipped: string };
export function quantsResults(figures: {
  threads: number;
  runs: number;
  wasm: Points;
  native: Points | { skipped: string };
}): {
  wllama_quants: Record<string, Record<'decode_128' | 'decode_1k' | 'prefill_128' | 'prefill_1k', Ratio>>;
  wllama_quants_curve: Record<string, unknown>;
};
export function measureQuantsWasm(
  page: unknown,
  opts: { types: string[]; runs?: number },
): Promise<{ threads: number; points: Points }>;
export function measureQuantsNative(
  paths: Record<string, string>,
  opts: { threads: number; runs?: number },
): Promise<Points | { skipped: string }>;
