/**
 * Keeps big requests from holding the event loop (issue 15: no input under 1 MB may block it for
 * 100 ms). A request runs as one chain of microtasks from its body read to its last byte unless
 * something really waits; the core sits in the engine worker beside the port that answers every
 * other request of the page, and the scripted engine never waits at all. So the steps whose cost
 * grows with the input call {@link pace} between them: it returns at once while the current turn
 * of the loop is young, and yields a macrotask once it has run for {@link PACE_BUDGET_MS}. A
 * small request never yields (nothing changes for it); a 1 MB one yields a few times, a
 * millisecond each.
 */

/** How long one turn of the loop may run before {@link pace} yields. */
export const PACE_BUDGET_MS = 15;

/** When the current turn started, as first seen by {@link pace}; null once the loop has turned. */
let turnStart: number | null = null;

/**
 * What a test watches and steers of {@link pace}, so that "the work is sliced and yields" is counted
 * rather than timed (issue 38: wall-clock bounds failed on a loaded machine): `now` replaces the
 * clock (one that moves by {@link PACE_BUDGET_MS} per read makes every call after a turn's first
 * yield, whatever the machine's speed), `onPace` sees each call and `onYield` each yield.
 */
export type PaceProbe = { now?: () => number; onPace?: () => void; onYield?: () => void };

let probe: PaceProbe | null = null;

/**
 * Installs (or, with null, removes) the {@link PaceProbe}; for tests and the bench only.
 *
 * @example
 * let yields = 0;
 * setPaceProbe({ onYield: () => yields++ });
 */
export function setPaceProbe(next: PaceProbe | null): void {
  probe = next;
  turnStart = null;
}

const clock = (): number => (probe?.now ? probe.now() : performance.now());

/**
 * Yields to the event loop if the current turn has run for {@link PACE_BUDGET_MS}; else resolves
 * at once (a microtask). The first call in a turn starts its clock, so call it where a request's
 * work begins as well as between its big steps.
 *
 * @example
 * const json = await readJsonObject(request, max);
 * await pace();
 * const prepared = await prepareCreate(json, deps);
 */
export async function pace(): Promise<void> {
  probe?.onPace?.();
  const now = clock();
  if (turnStart === null) return startTurn(now);
  if (now - turnStart < PACE_BUDGET_MS) return;
  await nextTurn();
  startTurn(clock());
}

/**
 * Yields to the event loop now, whatever the turn's age, and starts a new turn's clock: for work
 * before which the turn may already be long without {@link pace} having seen it (a 16 MiB message
 * just received and copied).
 *
 * @example
 * if (bytes.byteLength > SLICE) await yieldTurn();
 */
export async function yieldTurn(): Promise<void> {
  await nextTurn();
  startTurn(clock());
}

function startTurn(now: number): void {
  turnStart = now;
  // A timer runs only between turns: once it has, the next pace() starts a new clock.
  setTimeout(() => {
    turnStart = null;
  }, 0);
}

type PostingScheduler = {
  postTask?: (task: () => void, opts: { priority: 'user-visible' }) => Promise<void>;
};

/**
 * A macrotask behind the ones already queued: `scheduler.postTask` at normal priority where there
 * is one (Chromium, pages and workers), else a timer. Not `scheduler.yield()`: its continuation runs
 * before every other task of its priority, so a long paced loop still starved the worker's timers
 * and other requests' messages (a 22k-item create held them ~400 ms; issue 27).
 */
function nextTurn(): Promise<void> {
  probe?.onYield?.();
  const scheduler = (globalThis as { scheduler?: PostingScheduler }).scheduler;
  if (typeof scheduler?.postTask === 'function')
    return scheduler.postTask(() => {}, { priority: 'user-visible' });
  return new Promise((resolve) => setTimeout(resolve, 0));
}
