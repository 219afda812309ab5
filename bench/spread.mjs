/**
 * The spread and the CPU pressure of the bench's engine figures: each figure of the llama.cpp curve
 * is a median with its quartiles, and says how loaded the machine was while it was taken (issue 23:
 * on 2 shared cores one figure under load can be 4× another).
 */
import { readFileSync } from 'node:fs';
import { quantile } from './stats.mjs';

export const round = (v, digits = 2) => (Number.isFinite(v) ? Number(v.toFixed(digits)) : null);

/**
 * `{median, p25, p75, runs}` of a list of samples.
 *
 * @example
 * spread([7.1, 6.8, 9.0, 7.4, 5.2]); // { median: 7.1, p25: 6.8, p75: 7.4, runs: 5 }
 */
export function spread(values, digits = 2) {
  return {
    median: round(quantile(values, 0.5), digits),
    p25: round(quantile(values, 0.25), digits),
    p75: round(quantile(values, 0.75), digits),
    runs: values.length,
  };
}

/** `/proc/pressure/cpu`'s `some` line: the avg10 percentage and the total stalled microseconds. */
function readPressure() {
  try {
    const line = readFileSync('/proc/pressure/cpu', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('some'));
    const avg10 = Number(/avg10=([\d.]+)/.exec(line ?? '')?.[1]);
    const total = Number(/total=(\d+)/.exec(line ?? '')?.[1]);
    return Number.isFinite(total) ? { avg10, total, at: performance.now() } : null;
  } catch {
    return null; // not Linux, or PSI disabled
  }
}

/**
 * Watches the CPU pressure over a series of runs: `during(fn)` times one run and records the share of
 * its wall time in which some runnable task waited for a CPU (PSI `some`, from the `total` counter
 * before and after); `summary()` gives that share's median and maximum over the runs, and the avg10
 * read at the first and last run. The bench's own threads count too: 100 % means every moment of the
 * run had someone waiting, whoever it was.
 *
 * @example
 * const psi = pressureWatch();
 * for (…) await psi.during(() => run());
 * out.cpu_pressure = psi.summary();
 */
export function pressureWatch() {
  const shares = [];
  const avg10 = [];
  return {
    async during(fn) {
      const before = readPressure();
      const result = await fn();
      const after = readPressure();
      if (before && after && after.at > before.at) {
        shares.push(((after.total - before.total) / 1000 / (after.at - before.at)) * 100);
        avg10.push(after.avg10);
      }
      return result;
    },
    summary() {
      if (shares.length === 0) return { unavailable: '/proc/pressure/cpu could not be read' };
      return {
        some_pct_median: round(quantile(shares, 0.5), 1),
        some_pct_max: round(Math.max(...shares), 1),
        avg10_first: avg10[0],
        avg10_last: avg10[avg10.length - 1],
      };
    },
  };
}

/** The `some` avg10/avg60 line now, for a log line. */
export function pressureNow() {
  try {
    const line = readFileSync('/proc/pressure/cpu', 'utf8').split('\n')[0] ?? '';
    return line.replace(/ total=\d+/, '');
  } catch {
    return 'no /proc/pressure/cpu';
  }
}
