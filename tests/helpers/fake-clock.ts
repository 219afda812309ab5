/**
 * vitest's fake clock for tests of bounds: the fakes' pace and the code's timers (and `Date.now`,
 * `performance.now`) move only as the test advances them, so a loaded machine cannot stretch a
 * steady pace past a bound, or let a longer timer win a race it should lose.
 */
import { onTestFinished, vi } from 'vitest';

/** Puts the rest of the current test on the fake clock (real timers come back when it ends). */
export function fakeClock(): void {
  vi.useFakeTimers();
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

/**
 * Settles `work`, advancing the fake clock `stepMs` at a time meanwhile (at most ten minutes of it:
 * past that, `work` is returned as it stands, and a test awaiting it times out).
 * @example
 * fakeClock();
 * await onClock(engine.load(model));
 */
export async function onClock<T>(work: Promise<T>, stepMs = 10): Promise<T> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let ms = 0; !settled && ms < 600_000; ms += stepMs) await vi.advanceTimersByTimeAsync(stepMs);
  return work;
}
