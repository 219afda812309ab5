import type { ConversationItem } from 'openai/resources/conversations/items';
import type { Response as ApiResponse, ResponseItem } from 'openai/resources/responses/responses';
import { type ApiError, toApiError } from '../../common/api-error';
import { pace } from '../../common/pace';
import type { LoadProgress } from '../../engine/types';
import type { ResponseStore, StoredResponse } from '../../store/types';
import type { EventLog } from './event-log';
import type { LiveRun } from './live-runs';
import type { RunLocks } from './recovery';
import type { PreparedCreate } from './request/prepare-create';
import type { ResponseObject } from './response-object';
import type { ResponseRun } from './response-run';
import { drive, failOrCancel, type LoopDeps } from './run-loop';

/**
 * The run and persist stages of `POST /v1/responses`: hands a prepared run to the loop (run-loop.ts)
 * and writes its final state (or, when that write fails, what can be written). create-response.ts picks
 * how the answer goes out (SSE, JSON, background) and hands each run here.
 */

/** What running a response needs from `CreateDeps` (create-response.ts). */
export interface RunDeps extends LoopDeps {
  store: ResponseStore;
  runLocks?: RunLocks;
}

export function record(response: ResponseObject, prepared: PreparedCreate): StoredResponse {
  return { response: response as unknown as ApiResponse, inputItems: prepared.inputItems };
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
  { log, writeFinal, progress, live }: RunSinks,
): Promise<ApiError | null> {
  run.start();
  const outcome = await drive(run, prepared, deps, signal, progress);
  const error =
    outcome.kind === 'closed' ? await endClosed(run, prepared, deps, signal, live) : outcome.error;
  if (live?.deleted) {
    // DELETE waits for this run to settle, then removes whatever it wrote before: nothing more.
    log?.discard();
    await log?.close().catch(() => {});
    return error;
  }
  try {
    await log?.close();
    await pace();
    if (writeFinal) await deps.store.putResponse(record(run.response, prepared), { durable: true });
  } catch (err) {
    // Every event has gone out already: the reader hears of it in-band, and the record says so.
    const storageError = toApiError(err);
    run.error(storageError);
    // The log keeps the error too, where it still can (no snapshot: the record is written below).
    await log?.close().catch(() => {});
    if (writeFinal) await recordUnstored(deps.store, run.response, prepared, storageError);
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
    await appendToConversation(run, prepared, deps, live);
    run.end();
    return null;
  } catch (err) {
    return failOrCancel(run, err, signal);
  }
}

/**
 * One append of input and output together, so concurrent responses on a conversation never
 * interleave. It runs after the output items are done and before the terminal event: when it fails,
 * the response fails with its error, and the conversation (one atomic append) is left as it was.
 */
async function appendToConversation(
  run: ResponseRun,
  prepared: PreparedCreate,
  deps: RunDeps,
  live: LiveRun | null,
): Promise<void> {
  if (!prepared.conversationId || live?.deleted) return;
  const items = [...prepared.newItems, ...(run.response.output as ResponseItem[])];
  await deps.store.appendConversationItems(prepared.conversationId, items as unknown as ConversationItem[]);
}

/**
 * After the final write of `response` failed (a full disk, say), writes what can be written: the
 * response `failed` with the storage error and without its output (which may be what did not fit),
 * else no record at all. Either way none stays `in_progress`, which only recovery at the next start
 * would end.
 */
async function recordUnstored(
  store: ResponseStore,
  response: ResponseObject,
  prepared: PreparedCreate,
  error: ApiError,
): Promise<void> {
  const failed = {
    ...structuredClone(response),
    status: 'failed' as const,
    completed_at: null,
    output: [],
    error: {
      code: error.code ?? 'server_error',
      message: `The response could not be stored, and its output was not kept: ${error.message}`,
    },
  } as ResponseObject;
  try {
    await store.putResponse(record(failed, prepared), { durable: true });
  } catch {
    await store.deleteResponse(response.id).catch(() => {});
  }
}

/**
 * Stores a JSON run's final state. A request refused by the engine before any output (context too
 * long, say) leaves nothing behind. Resolves with the storage error when the write failed (the
 * client gets it as the answer; the record is marked failed, see {@link recordUnstored}).
 */
export async function storeJsonResult(
  response: ResponseObject,
  prepared: PreparedCreate,
  deps: RunDeps,
  error: ApiError | null,
): Promise<ApiError | null> {
  try {
    if (error && error.status < 500 && response.output.length === 0)
      await deps.store.deleteResponse(response.id);
    else await deps.store.putResponse(record(response, prepared), { durable: true });
    return null;
  } catch (err) {
    const storageError = toApiError(err);
    await recordUnstored(deps.store, response, prepared, storageError);
    return storageError;
  }
}
