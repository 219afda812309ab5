import type { ConversationItem } from 'openai/resources/conversations/items';
import type { Response as ApiResponse, ResponseItem } from 'openai/resources/responses/responses';
import { type ApiError, toApiError } from '../../../common/api-error';
import { pace } from '../../../common/pace';
import type { ResponseStore, StoredResponse } from '../../../store/types';
import type { PreparedCreate } from '../request/prepare-create';
import type { ResponseObject } from '../request/response-object';
import type { EventLog } from './event-log';

/**
 * The persist stage of `POST /v1/responses`: what a finished run leaves in the store. It receives the
 * run's response object (its final state) and the prepared request; it never drives the run, so the
 * run stage's events are all out before anything here is written.
 */

/** The stored record of `response`: the response and the input items it answered. */
export function record(response: ResponseObject, prepared: PreparedCreate): StoredResponse {
  return { response: response as unknown as ApiResponse, inputItems: prepared.inputItems };
}

/**
 * One append of input and output together, so concurrent responses on a conversation never
 * interleave. It runs after the output items are done and before the terminal event: when it fails,
 * the response fails with its error, and the conversation (one atomic append) is left as it was.
 */
export async function appendToConversation(
  store: ResponseStore,
  response: ResponseObject,
  prepared: PreparedCreate,
): Promise<void> {
  if (!prepared.conversationId) return;
  const items = [...prepared.newItems, ...(response.output as ResponseItem[])];
  await store.appendConversationItems(prepared.conversationId, items as unknown as ConversationItem[]);
}

/** A deleted response's log: DELETE waits for the run to settle, then removes what it wrote before. */
export async function discardLog(log: EventLog | null): Promise<void> {
  log?.discard();
  await log?.close().catch(() => {});
}

/**
 * Writes the event log's last batch and (with `writeFinal`) the final record. Resolves with the
 * storage error when a write failed (a full disk, say): the caller tells the reader in-band, then
 * calls {@link saveAfterStorageError}.
 */
export async function saveFinal(
  store: ResponseStore,
  response: ResponseObject,
  prepared: PreparedCreate,
  log: EventLog | null,
  writeFinal: boolean,
): Promise<ApiError | null> {
  try {
    await log?.close();
    await pace();
    if (writeFinal) await store.putResponse(record(response, prepared), { durable: true });
    return null;
  } catch (err) {
    return toApiError(err);
  }
}

/**
 * After {@link saveFinal} failed: the log keeps the error event too where it still can (no snapshot:
 * the record is written here), and the record is written as {@link recordUnstored} says.
 */
export async function saveAfterStorageError(
  store: ResponseStore,
  response: ResponseObject,
  prepared: PreparedCreate,
  log: EventLog | null,
  writeFinal: boolean,
  error: ApiError,
): Promise<void> {
  await log?.close().catch(() => {});
  if (writeFinal) await recordUnstored(store, response, prepared, error);
}

/**
 * After the final write of `response` failed, writes what can be written: the response `failed`
 * with the storage error and without its output (which may be what did not fit), else no record at
 * all. Either way none stays `in_progress`, which only recovery at the next start would end.
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
  store: ResponseStore,
  response: ResponseObject,
  prepared: PreparedCreate,
  error: ApiError | null,
): Promise<ApiError | null> {
  try {
    if (error && error.status < 500 && response.output.length === 0) await store.deleteResponse(response.id);
    else await store.putResponse(record(response, prepared), { durable: true });
    return null;
  } catch (err) {
    const storageError = toApiError(err);
    await recordUnstored(store, response, prepared, storageError);
    return storageError;
  }
}
