/**
 * The run stage of a create: given the prepared request (request/) and a {@link ResponseRun}, the
 * loop (`run-loop.ts`) drives engine passes and hosted-tool turns (`loop-state.ts`,
 * `python-turn.ts`), and the run turns engine chunks into output items and stream events in
 * OpenAI's order (`response-run.ts`, `run-parts.ts`, `reasoning-events.ts`). It hands on a
 * `RunOutcome`; it never writes the store (persist/ does, after it).
 *
 * @example
 * import { drive, ResponseRun } from './run';
 */
export { LiveRun, LiveRuns } from './live-runs';
export { ResponseRun, type StreamEvent } from './response-run';
export { drive, failOrCancel, type LoopDeps, type RunOutcome } from './run-loop';
