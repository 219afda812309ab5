import type { ApiError } from '../../common/api-error';
import type { LoadProgress } from '../../engine/types';
import type { ResponseStore } from '../../store/types';
import type { EventLog } from './persist/event-log';
import { appendToConversation, discardLog, saveAfterStorageError, saveFinal } from './persist/final-save';
import type { RunLocks } from './persist/recovery';
import type { PreparedCreate } from './request/prepare-create';
import type { LiveRun } from './run/live-runs';
import type { ResponseRun } from './run/response-run';
import { drive, failOrCancel, type LoopDeps } from './run/run-loop';

/**
 * Runs a prepared create to its end, one stage after the other: the run stage (run/run-loop.ts)
 * drives the engine into the {@link ResponseRun}, then the persist stage (persist/final-save.ts)
 * writes the event log and the final state. Neither stage calls the other: this file hands the run's
 * response to persistence. create-response.ts picks how the answer goes out (SSE, JSON, background).
 */

/** What running a response needs from `CreateDeps` (create-response.ts). */
export interface RunDeps extends LoopDeps {
  store: ResponseStore;
  runLocks?: RunLocks;
}

/**
 * Where a run's results go: its event log (background runs only), whether its final state is
 * written, who hears about the model's load (direct streams only), and its entry among the live
 * runs (stored responses only), which says whether it was deleted meanwhile.
 */
interface RunSinks {
  log: EventLog | null;
  writeFinal: boolean;
  progress?: (p: LoadProgress) => void;
  live: LiveRun | null;
  /** A direct stream's reader: the run waits while it lags too far (see `LoopDeps.drain`). */
  drain?: () => Promise<void> | null;
}

/**
 * Runs a response to its end: drives the engine into `run`, then writes the event log and the final
 * state (unless the response was deleted meanwhile). Resolves with the error that failed the run, if any.
 */
export async function execute(
  run: ResponseRun,
  prepared: PreparedCreate,
  deps: RunDeps,
  signal: AbortSignal,
  sinks: RunSinks,
): Promise<ApiError | null> {
  let release = () => {};
  if (prepared.body.store !== false)
    deps.runLocks?.hold(run.response.id, new Promise<void>((r) => (release = r)));
  try {
    return await finishRun(run, prepared, deps, signal, sinks);
  } finally {
    release();
  }
}

async function finishRun(
  run: ResponseRun,
  prepared: PreparedCreate,
  deps: RunDeps,
  signal: AbortSignal,
  { log, writeFinal, progress, live, drain }: RunSinks,
): Promise<ApiError | null> {
  run.start();
  const outcome = await drive(run, prepared, drain ? { ...deps, drain } : deps, signal, progress);
  const error =
    outcome.kind === 'closed' ? await endClosed(run, prepared, deps, signal, live) : outcome.error;
  if (live?.deleted) {
    await discardLog(log);
    return error;
  }
  const storageError = await saveFinal(deps.store, run.response, prepared, log, writeFinal);
  if (storageError) {
    // Every event has gone out already: the reader hears of it in-band, and the record says so.
    run.error(storageError);
    await saveAfterStorageError(deps.store, run.response, prepared, log, writeFinal, storageError);
  }
  return error;
}

/**
 * Sends the terminal event of a run the loop left closed, once its conversation append (if any)
 * has succeeded; a failed append fails the response. Resolves with the error that failed it.
 */
async function endClosed(
  run: ResponseRun,
  prepared: PreparedCreate,
  deps: RunDeps,
  signal: AbortSignal,
  live: LiveRun | null,
): Promise<ApiError | null> {
  try {
    if (!live?.deleted) await appendToConversation(deps.store, run.response, prepared);
    run.end();
    return null;
  } catch (err) {
    return failOrCancel(run, err, signal);
  }
}
