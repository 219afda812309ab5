/**
 * wllama and llama.cpp failures as `ApiError`s. wllama's errors say little (`WllamaError` with a
 * type, `RuntimeError` for a dead wasm instance, plain Errors carrying llama.cpp's message for
 * request errors), so the log lines llama.cpp wrote are added where they say more.
 */
import { ApiError, invalidRequest, serviceUnavailable } from '../../common/api-error';
import { TimeoutError } from './chunk-queue';

/** llama.cpp's refusal of a prompt longer than the context: `request (3010 tokens) exceeds …`. */
const CONTEXT_OVERFLOW = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/;

/**
 * The prompt size llama.cpp reported when it refused a prompt longer than its context, or null.
 *
 * @example
 * overflowTokens(new Error('request (3010 tokens) exceeds the available context size (2048 tokens), try increasing it')); // 3010
 */
export function overflowTokens(err: unknown): number | null {
  const m = CONTEXT_OVERFLOW.exec(messageOf(err));
  return m ? Number(m[1]) : null;
}

/** Whether `err` means the wasm instance is gone (crashed or aborted): it must be replaced. */
export function isInstanceDead(err: unknown): boolean {
  const name = err instanceof Error ? err.name : '';
  const message = messageOf(err);
  return (
    name === 'RuntimeError' || /has crashed|\(ABORT\)|unreachable|memory access out of bounds/i.test(message)
  );
}

/**
 * An error raised while generating with `modelId`, with llama.cpp's own words (`trouble`) when the
 * instance died. A context overflow is the client's 400; a dead instance a 500 that says the next
 * request starts a new one.
 *
 * @example
 * mapGenerateError(err, 'tiny', 'GGML_ASSERT(…) failed'); // ApiError 500 model_crashed
 */
export function mapGenerateError(err: unknown, modelId: string, trouble = ''): ApiError {
  if (err instanceof ApiError) return err;
  const message = messageOf(err);
  const overflow = CONTEXT_OVERFLOW.exec(message);
  if (overflow) {
    return invalidRequest(
      'input',
      `Your input exceeds the context window of model '${modelId}' (${overflow[1]} > ${overflow[2]} tokens). Please shorten the input or load the model with a larger contextSize.`,
      'context_length_exceeded',
    );
  }
  if (err instanceof TimeoutError) {
    return new ApiError(
      504,
      'server_error',
      'model_unresponsive',
      null,
      `llama.cpp stopped answering while running '${modelId}': ${message}${said(trouble)} Its instance was discarded; the next request starts a new one.`,
    );
  }
  if (isInstanceDead(err)) {
    return new ApiError(
      500,
      'server_error',
      'model_crashed',
      null,
      `llama.cpp crashed while running '${modelId}' (${message || 'no message'})${said(trouble)} Its instance was discarded; the next request starts a new one.`,
    );
  }
  return new ApiError(
    500,
    'server_error',
    'server_error',
    null,
    `llama.cpp failed while running '${modelId}': ${message || 'no message'}${said(trouble)}`,
  );
}

/**
 * An error raised while fetching or loading `modelId`: a failed download is a 503
 * `model_download_failed`, a stall `model_load_timeout`, a file llama.cpp rejects `model_load_failed`.
 *
 * @example
 * mapLoadError(new TypeError('Failed to fetch'), 'tiny'); // ApiError 503 model_download_failed
 */
export function mapLoadError(err: unknown, modelId: string, trouble = ''): ApiError {
  if (err instanceof ApiError) return err;
  const message = messageOf(err);
  const type = (err as { type?: unknown } | null)?.type;
  if (err instanceof TimeoutError) {
    return new ApiError(
      504,
      'server_error',
      'model_load_timeout',
      null,
      `Loading model '${modelId}' made no progress: ${message}${said(trouble)}`,
    );
  }
  if (type === 'download_error' || /fetch|network|load failed|status \d{3}|quota/i.test(message)) {
    return serviceUnavailable(`Could not download model '${modelId}': ${message}`, 'model_download_failed');
  }
  return new ApiError(
    500,
    'server_error',
    'model_load_failed',
    null,
    `llama.cpp could not load model '${modelId}': ${message || 'no message'}${said(trouble)}`,
  );
}

function said(trouble: string): string {
  return trouble ? ` llama.cpp said: ${trouble}.` : '';
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  return err === undefined ? '' : String(err);
}
