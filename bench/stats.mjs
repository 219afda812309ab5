/** The bench's statistics: nearest-rank quantiles and the `{median, p90, runs}` summary. */

/**
 * The bench's one quantile rule, nearest rank: the smallest sample with at least `q` of the samples
 * at or below it (the median of an even count is the lower middle one). NaN for no samples.
 *
 * @example
 * quantile([5.2, 6.8, 7.1, 7.4, 9.0], 0.75); // 7.4
 */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
export const round = (v, digits = 3) => Number(v.toFixed(digits));
/** `{median, p90, runs}` of a list of samples (p90: nearest rank). */
export function stats(values, digits = 3) {
  return {
    median: round(quantile(values, 0.5), digits),
    p90: round(quantile(values, 0.9), digits),
    runs: values.length,
  };
}

/**
 * Runs one pair of a paired comparison, `a` first on even `i` and `b` first on odd, so that a drift
 * in the machine's load falls on both sides alike; resolves with `[a's result, b's result]`.
 *
 * @example
 * const [intab, direct] = await alternating(i, () => viaIntab(), () => viaDirect());
 */
export async function alternating(i, a, b) {
  if (i % 2 === 0) {
    const first = await a();
    return [first, await b()];
  }
  const second = await b();
  return [await a(), second];
}
