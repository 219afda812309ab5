import { PACE_BUDGET_MS, setPaceProbe } from '../../src/common/pace';

/**
 * Runs `work` with {@link setPaceProbe}'s clock moving a whole turn's budget per read, so that every
 * call to pace() after a turn's first yields, on any machine at any load; and counts the calls and
 * the yields. "The work is sliced" is then a count: a loop that stopped calling pace(), or one slice
 * that grew with the input, shows as too few calls for the input's size (issue 38).
 *
 * @example
 * const { value, calls, yields } = await countPaced(() => countScriptedTokens(text));
 * expect(calls).toBeGreaterThanOrEqual(text.length / SLICE_CHARS - 1);
 */
export async function countPaced<T>(
  work: () => Promise<T>,
): Promise<{ value: T; calls: number; yields: number }> {
  let now = 0;
  let calls = 0;
  let yields = 0;
  setPaceProbe({
    now: () => (now += PACE_BUDGET_MS),
    onPace: () => calls++,
    onYield: () => yields++,
  });
  try {
    const value = await work();
    return { value, calls, yields };
  } finally {
    setPaceProbe(null);
  }
}

/**
 * How many times other tasks ran while `work` did: a timer that re-arms itself counts its turns. Work
 * that yields between its slices lets it run about once per yield; work that holds the loop, never.
 *
 * @example
 * const { value, turns } = await countTurns(() => countPaced(work));
 */
export async function countTurns<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let live = true;
  const tick = () => {
    if (!live) return;
    turns++;
    setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  try {
    return { value: await work(), turns };
  } finally {
    live = false;
  }
}

/**
 * How many times `work` called pace(), with a clock that never moves (so nothing yields and the count
 * costs nothing): the paced loops call it once per piece or per few hundred steps of their work, so
 * the count is a meter of that work, and a quadratic walk shows as a count that grows with the
 * square of the input.
 *
 * @example
 * const { calls } = await countPaceCalls(() => checkRequestSchema(schema, site));
 */
export async function countPaceCalls<T>(work: () => Promise<T>): Promise<{ value: T; calls: number }> {
  let calls = 0;
  setPaceProbe({ now: () => 0, onPace: () => calls++ });
  try {
    return { value: await work(), calls };
  } finally {
    setPaceProbe(null);
  }
}

/**
 * `work` run in one turn of the loop, as a synchronous function would run it: with a clock that never
 * moves, pace() never yields. The reference a paced function's sliced runs are compared with (its
 * result must not depend on where the slices fall).
 *
 * @example
 * expect(await countPaced(() => checkJsonSchemaPaced(s, v))).toMatchObject({ value: await inOneTurn(() => checkJsonSchemaPaced(s, v)) });
 */
export async function inOneTurn<T>(work: () => Promise<T>): Promise<T> {
  return (await countPaceCalls(work)).value;
}
