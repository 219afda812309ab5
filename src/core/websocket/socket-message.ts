import { ApiError, clip, invalidRequest, toApiError } from '../../common/api-error';

/** Longest text message a socket reads before parsing it; the core's own body limit applies after. */
export const MAX_SOCKET_MESSAGE_CHARS = 16 * 1024 * 1024;

/** The fields of `POST /v1/responses` that a socket message must not carry (the socket streams, always). */
const HTTP_ONLY_FIELDS = ['stream', 'stream_options', 'background'] as const;

/** One `response.create` message read as a create body (its `type` gone), or the error to send back. */
export type ParsedMessage = { body: Record<string, unknown> } | { error: ApiError };

/**
 * Reads one client message: a JSON object whose `type` is `response.create`, without the HTTP-only
 * fields. Anything else is an error the socket answers with an `error` event, staying open.
 *
 * @example
 * parseSocketMessage('{"type":"response.create","model":"scripted","input":"hi"}')
 * // → { body: { model: 'scripted', input: 'hi' } }
 */
export function parseSocketMessage(data: unknown): ParsedMessage {
  if (typeof data !== 'string')
    return {
      error: invalidRequest(null, 'Binary messages are not supported: send JSON text.', 'invalid_message'),
    };
  if (data.length > MAX_SOCKET_MESSAGE_CHARS)
    return {
      error: invalidRequest(
        null,
        `The message has ${data.length} characters; at most ${MAX_SOCKET_MESSAGE_CHARS} are read.`,
        'message_too_large',
      ),
    };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { error: invalidRequest(null, 'The message is not valid JSON.', 'invalid_json') };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return { error: invalidRequest(null, 'The message must be a JSON object.', 'invalid_message') };
  const { type, ...body } = json as Record<string, unknown>;
  if (type !== 'response.create') {
    const named = typeof type === 'string' ? `'${clip(type)}'` : 'missing';
    return {
      error: invalidRequest(
        'type',
        `Invalid event type (${named}): the only client event is 'response.create'.`,
        'invalid_value',
      ),
    };
  }
  for (const field of HTTP_ONLY_FIELDS) {
    if (field in body)
      return {
        error: invalidRequest(
          field,
          `'${field}' is not supported in WebSocket mode: a socket always streams, and runs in the foreground.`,
          'unsupported_parameter',
        ),
      };
  }
  return { body };
}

/** The WebSocket error envelope (Open Responses' `WebSocketErrorEvent`): an HTTP-style status and OpenAI's error. */
export interface SocketErrorEvent {
  type: 'error';
  status: number;
  error: { type: string; code: string | null; message: string; param: string | null };
}

/**
 * Any failure as the socket's `error` event. Its `code` is the error's own, as OpenAI sends it over
 * HTTP, or null for one without (an unmatched `function_call_output`): OpenAI's WebSocket error
 * payload has a nullable `code`. Open Responses' envelope lists `code` as a string, but filling it
 * with the type (`"code": "invalid_request_error"`) named a code no OpenAI error has (issue 43).
 *
 * @example
 * socketError(invalidRequest('model', 'Missing model.')) // → { type: 'error', status: 400, error: {…} }
 */
export function socketError(err: unknown): SocketErrorEvent {
  const e = toApiError(err);
  return {
    type: 'error',
    status: e.status,
    error: { type: e.type, code: e.code, message: e.message, param: e.param },
  };
}

/** An error body read from an HTTP answer (`{"error":{…}}`) as an {@link ApiError}. */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  try {
    const { error } = (await res.json()) as { error: Record<string, unknown> };
    return new ApiError(
      res.status,
      String(error.type ?? 'server_error'),
      typeof error.code === 'string' ? error.code : null,
      typeof error.param === 'string' ? error.param : null,
      String(error.message ?? `HTTP ${res.status}`),
    );
  } catch {
    return new ApiError(res.status, 'server_error', null, null, `HTTP ${res.status} with no error body.`);
  }
}
