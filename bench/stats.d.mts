/** Types for bench/stats.mjs (see there). */
export function quantile(values: readonly number[], q: number): number;
export function round(v: number, digits?: number): number;
export function stats(
  values: readonly number[],
  digits?: number,
): { median: number; p90: number; runs: number };
export function alternating<A, B>(i: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]>;
