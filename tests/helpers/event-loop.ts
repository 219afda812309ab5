/**
 * How long a piece of async work kept the event loop busy: the longest stretch between two ticks of
 * a 1 ms interval while it ran. A regex that backtracks, or a router that is quadratic, shows here as
 * one long stretch, however the work awaits around it.
 *
 * @example
 * const { value: res, blockedMs } = await longestBlock(() => server.fetch(request));
 * expect(blockedMs).toBeLessThan(100);
 */
export async function longestBlock<T>(work: () => Promise<T>): Promise<{ value: T; blockedMs: number }> {
  let last = performance.now();
  let worst = 0;
  const tick = () => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  };
  const timer = setInterval(tick, 1);
  try {
    const value = await work();
    tick();
    return { value, blockedMs: worst };
  } finally {
    clearInterval(timer);
  }
}

/**
 * {@link longestBlock} of the fastest of `runs` runs: a busy machine (other processes, a GC) adds
 * time to one run, while work that is slow by nature (a quadratic regex) is slow every time.
 *
 * @example
 * const { value, blockedMs } = await fastestBlock(3, () => server.fetch(new Request(url)));
 */
export async function fastestBlock<T>(
  runs: number,
  work: () => Promise<T>,
): Promise<{ value: T; blockedMs: number }> {
  let best = await longestBlock(work);
  for (let i = 1; i < runs && best.blockedMs >= 20; i++) {
    const next = await longestBlock(work);
    if (next.blockedMs < best.blockedMs) best = next;
  }
  return best;
}
