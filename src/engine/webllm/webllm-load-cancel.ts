/**
 * Cancelling a web-llm model load: the error every waiter on the load gets, and a promise that
 * rejects with it when the load's signal aborts, for racing against web-llm's `reload`.
 */
import { ApiError } from '../../common/api-error';

/**
 * OpenAI-shaped: a request that was waiting for the model learns that the load was stopped on
 * purpose, and that sending it again loads the model again (a 503, as for other loads that ended).
 *
 * @example
 * throw loadCancelled('Qwen3-0.6B-q4f16_1-MLC');
 */
export function loadCancelled(modelId: string): ApiError {
  return new ApiError(
    503,
    'server_error',
    'model_load_cancelled',
    null,
    `Loading model '${modelId}' was cancelled; the parts already downloaded are kept. Send the request again to load it.`,
  );
}

/** A promise that rejects with {@link loadCancelled} once `signal` aborts; `dispose` stops listening. */
export interface CancelRace {
  promise: Promise<never>;
  dispose(): void;
}

/**
 * @example
 * const cancel = untilCancelled(signal, modelId);
 * try { await Promise.race([mlc.reload(modelId), cancel.promise]); } finally { cancel.dispose(); }
 */
export function untilCancelled(signal: AbortSignal | undefined, modelId: string): CancelRace {
  let onAbort = (): void => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(loadCancelled(modelId));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  // Nobody may be racing it when the load ended first: never an unhandled rejection.
  promise.catch(() => {});
  return { promise, dispose: () => signal?.removeEventListener('abort', onAbort) };
}
