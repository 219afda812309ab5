/**
 * Integer ranges as GBNF, digit by digit (as llama.cpp's `_build_min_max_int` does): `minimum` and
 * `maximum` become alternatives per digit count, each split where its digits stop being free.
 */
import { gbnfClass, gbnfLiteral } from './gbnf';

/**
 * The largest magnitude spelled out: 15 digits, exact in a double. A bound beyond it is met by every
 * integer the grammar allows (a `maximum` of 1e20, or zod's 2^53 - 1, admits all of them), so it is
 * clamped; a range that lies wholly beyond it has no integer the grammar writes.
 */
export const INTEGER_LIMIT = 999_999_999_999_999;

/**
 * GBNF for the integers `lo`..`hi` (null: unbounded on that side, up to ±{@link INTEGER_LIMIT}), or
 * null when no integer of at most 15 digits lies in the range.
 *
 * @example
 * integerRange(-5, 12); // '("-" [1-5] | [0-9] | "1" [0-2])'
 */
export function integerRange(lo: number | null, hi: number | null): string | null {
  const from = Math.max(lo ?? -INTEGER_LIMIT, -INTEGER_LIMIT);
  const to = Math.min(hi ?? INTEGER_LIMIT, INTEGER_LIMIT);
  if (from > to) return null;
  const alts: string[] = [];
  if (from < 0) alts.push(...rangeAlternatives(Math.max(1, -Math.min(to, -1)), -from).map((a) => `"-" ${a}`));
  if (to >= 0) alts.push(...rangeAlternatives(Math.max(0, from), to));
  return group(alts);
}

/**
 * GBNF alternatives matching the decimal integers `lo`..`hi` (0 ≤ lo ≤ hi ≤ {@link INTEGER_LIMIT}),
 * without leading zeros: one alternative per digit count, each split where its digits stop being free.
 *
 * @example
 * rangeAlternatives(5, 12); // ['[5-9]', '"1" [0-2]']
 */
export function rangeAlternatives(lo: number, hi: number): string[] {
  if (lo > hi) return [];
  const out: string[] = [];
  const loDigits = String(lo).length;
  const hiDigits = String(hi).length;
  for (let d = loDigits; d <= hiDigits; d++) {
    const first = d === 1 ? 0 : 10 ** (d - 1);
    const last = 10 ** d - 1;
    const a = Math.max(lo, first);
    const b = Math.min(hi, last);
    if (a <= b) out.push(sameLength(String(a), String(b)));
  }
  return out;
}

/** Digits a..b of the same length, as a GBNF expression. */
function sameLength(a: string, b: string): string {
  if (a.length === 1) return a === b ? gbnfLiteral(a) : gbnfClass([[a.charCodeAt(0), b.charCodeAt(0)]]);
  if (a[0] === b[0]) return `${gbnfLiteral(a[0] as string)} ${sameLength(a.slice(1), b.slice(1))}`;
  const rest = a.length - 1;
  const lowFull = /^0*$/.test(a.slice(1));
  const highFull = /^9*$/.test(b.slice(1));
  const alts: string[] = [];
  const start = Number(a[0]) + (lowFull ? 0 : 1);
  const end = Number(b[0]) - (highFull ? 0 : 1);
  if (!lowFull) alts.push(`${gbnfLiteral(a[0] as string)} ${sameLength(a.slice(1), '9'.repeat(rest))}`);
  if (start <= end) {
    const head = start === end ? gbnfLiteral(String(start)) : gbnfClass([[48 + start, 48 + end]]);
    alts.push(`${head} [0-9]${rest > 1 ? `{${rest}}` : ''}`);
  }
  if (!highFull) alts.push(`${gbnfLiteral(b[0] as string)} ${sameLength('0'.repeat(rest), b.slice(1))}`);
  return group(alts);
}

/** Alternatives as one GBNF expression. */
export function group(alternatives: string[]): string {
  return alternatives.length === 1 ? (alternatives[0] as string) : `(${alternatives.join(' | ')})`;
}
