/**
 * The one error type of the runtime. Everything that reaches a client as an error is an ApiError,
 * serialized once by {@link toErrorResponse} into OpenAI's `{"error":{message,type,param,code}}` body.
 *
 * @example
 * throw new ApiError(400, 'invalid_request_error', 'missing_required_parameter', 'model', "Missing required parameter: 'model'.");
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly param: string | null;
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string | null,
    param: string | null,
    message: string,
    /** Response headers that go with it (`retry-after` on a 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    // The last guard against echoing a request whole (a 1 MB key named in `param`, say): the places
    // that quote input clip it themselves, so that the message keeps its end.
    super(message.length > MAX_MESSAGE ? clip(message, MAX_MESSAGE) : message);
    this.param = param === null ? null : clip(param, MAX_PARAM);
  }

  /** The wire body, `{"error":{message,type,param,code}}`. */
  toJSON(): ApiErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** Longest message and param an error carries; a longer one is clipped (see {@link clip}). */
const MAX_MESSAGE = 2000;
const MAX_PARAM = 300;

/**
 * Input quoted in an error message, cut to `max` characters: a 1 MB model name or path must not come
 * back as a 1 MB message. What is left out is said, with the full length.
 *
 * @example
 * clip('gpt-4o') // → 'gpt-4o'
 * clip('x'.repeat(1e6)) // → its first 200 characters, then '… (1000000 characters)'
 */
export function clip(text: string, max = 200): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length} characters)`;
}

export interface ApiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/**
 * Plain-data form of an error, safe to send through postMessage/comlink (which keeps only
 * name, message and stack of real Error objects).
 */
export interface ApiErrorData {
  status: number;
  type: string;
  code: string | null;
  param: string | null;
  message: string;
}

/** @example invalidRequest('temperature', 'Invalid type for ...', 'invalid_type') */
export function invalidRequest(param: string | null, message: string, code: string | null = null): ApiError {
  return new ApiError(400, 'invalid_request_error', code, param, message);
}

/** @example notFound(`No response found with id 'resp_1'.`) */
export function notFound(message: string, param: string | null = null): ApiError {
  return new ApiError(404, 'invalid_request_error', null, param, message);
}

/**
 * OpenAI's answer to a request that names a model it does not serve: 400 `model_not_found` on
 * `model`, whatever the route (create, compact, input_tokens, a model load). `note` says more when
 * intab knows why (e.g. a model list that failed to load). `GET /v1/models/{id}` is the one 404.
 *
 * @example
 * throw modelNotFound('gpt-9'); // 400 "The requested model 'gpt-9' does not exist."
 */
export function modelNotFound(modelId: string, note: string | null = null): ApiError {
  const message = `The requested model '${clip(modelId)}' does not exist.`;
  return invalidRequest('model', note ? `${message} ${note}` : message, 'model_not_found');
}

/**
 * The 400 on `model` for a model that exists but does other work: an embedding model asked to chat
 * (responses, chat completions), or a chat model asked for embeddings.
 *
 * @example
 * throw unsupportedModel('snowflake-arctic-embed-m-q0f32-MLC-b32', 'chat'); // "… is an embedding model …"
 */
export function unsupportedModel(modelId: string, use: 'chat' | 'embeddings'): ApiError {
  const message =
    use === 'chat'
      ? `The model '${clip(modelId)}' is an embedding model: it serves /v1/embeddings only. Pick a chat model for responses and chat completions.`
      : `The model '${clip(modelId)}' is a chat model and cannot create embeddings: pick an embedding model for /v1/embeddings.`;
  return invalidRequest('model', message, 'unsupported_model');
}

/** @example serverError('The model failed while generating.') */
export function serverError(message: string): ApiError {
  return new ApiError(500, 'server_error', 'server_error', null, message);
}

/** @example serviceUnavailable('No engine is reachable.') */
export function serviceUnavailable(message: string, code: string | null = 'engine_unavailable'): ApiError {
  return new ApiError(503, 'server_error', code, null, message);
}

/**
 * OpenAI's 429 for a request that must wait its turn: type `requests`, code `rate_limit_exceeded`,
 * with `retry-after` (seconds) and `retry-after-ms`, which the `openai` SDK waits for before retrying.
 *
 * @example
 * throw rateLimited('Rate limit reached for my-model on queued requests: Limit 16, Used 16, Requested 1.', 2_000);
 */
export function rateLimited(message: string, retryAfterMs: number): ApiError {
  const ms = Math.max(1_000, Math.ceil(retryAfterMs));
  return new ApiError(429, 'requests', 'rate_limit_exceeded', null, message, {
    'retry-after': String(Math.ceil(ms / 1000)),
    'retry-after-ms': String(ms),
  });
}

/** Any thrown value becomes an ApiError; unknown failures are 500 `server_error`. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isApiErrorData(err)) return fromApiErrorData(err);
  const message = err instanceof Error ? err.message : String(err);
  return serverError(message || 'The server had an error while processing your request.');
}

export function toApiErrorData(err: unknown): ApiErrorData {
  const e = toApiError(err);
  return { status: e.status, type: e.type, code: e.code, param: e.param, message: e.message };
}

export function fromApiErrorData(d: ApiErrorData): ApiError {
  return new ApiError(d.status, d.type, d.code, d.param, d.message);
}

function isApiErrorData(v: unknown): v is ApiErrorData {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.status === 'number' && typeof o.type === 'string' && typeof o.message === 'string';
}

/** Serializes any error into OpenAI's error response. */
export function toErrorResponse(err: unknown): Response {
  const e = toApiError(err);
  return new Response(JSON.stringify(e.toJSON()), {
    status: e.status,
    headers: { ...e.headers, 'content-type': 'application/json' },
  });
}
