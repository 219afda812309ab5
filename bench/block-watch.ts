/**
 * The engine worker's longest synchronous block, for `max_event_loop_block_ms`: a 1 ms interval
 * notes the gap between its ticks; a task that holds the loop shows as one long gap, however its
 * work awaits around it (the same measure as tests/helpers/event-loop.ts, inside the worker).
 */

let last = 0;
let worst = 0;
let timer: ReturnType<typeof setInterval> | null = null;

function tick(): void {
  const now = performance.now();
  worst = Math.max(worst, now - last);
  last = now;
}

/** The prefix of the trace marks that tell which request each traced task served. */
export const BLOCK_MARK = 'intab-heavy:';

/**
 * Starts (or restarts) watching, from a clean slate, and marks the trace with `label` (a
 * `console.timeStamp`, so a trace's tasks can be told apart by request: bench/blocks.mjs).
 */
export function startBlockWatch(label: string): void {
  console.timeStamp(`${BLOCK_MARK}${label}`);
  if (timer !== null) clearInterval(timer);
  last = performance.now();
  worst = 0;
  timer = setInterval(tick, 1);
}

/** Stops watching; the longest gap between two ticks since {@link startBlockWatch}, in ms. */
export function stopBlockWatch(): number {
  tick();
  if (timer !== null) clearInterval(timer);
  timer = null;
  return worst;
}
