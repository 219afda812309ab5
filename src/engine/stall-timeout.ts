/**
 * Timeouts for the engines' long waits that fire on silence rather than on total duration: a
 * model's load (progress restarts the timer), one step of a stream.
 */

/** Thrown by {@link withStallTimeout} when no progress came in time. */
export class StallTimeoutError extends Error {
  override readonly name = 'StallTimeoutError';
}

/**
 * Races `work` against a timer that restarts whenever `bump` is called. Model downloads take
 * minutes on slow links, so a total deadline would fail healthy loads; a stall means no progress
 * report for `ms`. `ms <= 0` or Infinity disables the timer.
 *
 * @example
 * await withStallTimeout((bump) => { mlc.setInitProgressCallback(bump); return mlc.reload(id); }, 60_000);
 */
export function withStallTimeout<T>(work: (bump: () => void) => Promise<T>, ms: number): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return work(() => {});
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
    };
    const arm = () => {
      if (settled) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        settle();
        reject(new StallTimeoutError(`No progress for ${ms} ms.`));
      }, ms);
    };
    arm();
    work(arm).then(
      (v) => {
        settle();
        resolve(v);
      },
      (e: unknown) => {
        settle();
        reject(e);
      },
    );
  });
}

/** What a {@link deadline} resolves with once it has passed. */
export const EXPIRED = Symbol('expired');

/**
 * A timer as a promise, for racing one step of work: `expired` resolves with {@link EXPIRED} after
 * `ms` (never, for `ms <= 0` or Infinity), unless `clear()` came first.
 *
 * @example
 * const limit = deadline(60_000);
 * const step = await Promise.race([stream.next(), limit.expired]);
 * limit.clear();
 * if (step === EXPIRED) throw stalled();
 */
export function deadline(ms: number): { expired: Promise<typeof EXPIRED>; clear(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof EXPIRED>((resolve) => {
    if (ms > 0 && Number.isFinite(ms)) timer = setTimeout(() => resolve(EXPIRED), ms);
  });
  return { expired, clear: () => clearTimeout(timer) };
}
