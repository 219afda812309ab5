/**
 * Errors that say who failed: what an upstream server answered, turned into intab's ApiError with
 * the status the issue fixes (4xx passed on, 5xx and junk → 502 `upstream_error`, silence → 504).
 * Every message goes through {@link redact}, so a server that echoes the key does not leak it.
 */
import { ApiError, clip } from '../../common/api-error';
import { redactText, secretsOf } from '../../common/redact';
import { REMOTE_QUOTE_CHARS, type RemoteServer } from './remote-options';

/** The secrets of `server` (its key, its headers' values), to redact from what it sends. */
export function serverSecrets(server: RemoteServer): string[] {
  return secretsOf([server.apiKey, ...Object.values(server.headers)]);
}

/** The secrets of `server` (its key, its headers' values) replaced by `[redacted]` in `text`. */
export function redact(text: string, server: RemoteServer): string {
  return redactText(text, serverSecrets(server));
}

/** `text` quoted for a message: redacted and clipped to {@link REMOTE_QUOTE_CHARS}. */
export function quote(text: string, server: RemoteServer): string {
  return clip(redact(text, server).trim(), REMOTE_QUOTE_CHARS);
}

/** The server's message and param from an OpenAI-shaped (or llama-server / FastAPI) error body. */
function upstreamMessage(body: string): { message: string | null; param: string | null } {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const err = (typeof json.error === 'object' && json.error ? json.error : json) as Record<string, unknown>;
    const message =
      typeof err.message === 'string'
        ? err.message
        : typeof json.error === 'string'
          ? json.error
          : typeof json.detail === 'string'
            ? json.detail
            : null;
    return { message, param: typeof err.param === 'string' ? err.param : null };
  } catch {
    return { message: null, param: null };
  }
}

/**
 * The ApiError for an upstream answer that is not 2xx.
 *
 * @example
 * upstreamStatusError(server, 401, '{"error":{"message":"Invalid API Key"}}', null)
 * // → 401 authentication_error "The remote server at http://… refused the API key: Invalid API Key"
 */
export function upstreamStatusError(
  server: RemoteServer,
  status: number,
  body: string,
  retryAfter: string | null,
): ApiError {
  const { message, param } = upstreamMessage(body);
  const said = quote(message ?? body, server) || `HTTP ${status}`;
  const where = `The remote server at ${server.baseURL}`;
  if (status === 401 || status === 403)
    return new ApiError(
      status,
      status === 401 ? 'authentication_error' : 'permission_error',
      'upstream_unauthorized',
      null,
      `${where} refused the API key (${status}): ${said}`,
    );
  if (status === 429)
    return new ApiError(
      429,
      'requests',
      'rate_limit_exceeded',
      null,
      `${where} is rate limiting: ${said}`,
      retryAfter ? { 'retry-after': retryAfter } : {},
    );
  if (status === 400 || status === 404 || status === 422)
    return new ApiError(
      status,
      'invalid_request_error',
      'upstream_rejected',
      param,
      `${where} rejected the request: ${said}`,
    );
  return upstreamError(server, `answered ${status}: ${said}`);
}

/** 502 `upstream_error`: the server failed or answered something that is not the API's shape. */
export function upstreamError(server: RemoteServer, what: string): ApiError {
  return new ApiError(
    502,
    'server_error',
    'upstream_error',
    null,
    `The remote server at ${server.baseURL} ${what}`,
  );
}

/**
 * 502 for a server that could not be reached. In a browser a request blocked by CORS fails exactly
 * like one to a server that is down (a bare TypeError), so the message names both.
 */
export function unreachable(server: RemoteServer, err: unknown): ApiError {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  const inBrowser =
    typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
    typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined';
  const cors = inBrowser
    ? ' If it is running, the browser probably blocked the request: the server must allow this origin with CORS.'
    : '';
  return new ApiError(
    502,
    'server_error',
    'upstream_unreachable',
    null,
    `Could not reach the remote server at ${server.baseURL} (${quote(detail, server)}).${cors}`,
  );
}

/** 504: no first byte (or no further byte) within `ms`. */
export function upstreamTimeout(server: RemoteServer, ms: number, what: string): ApiError {
  return new ApiError(
    504,
    'server_error',
    'upstream_timeout',
    null,
    `The remote server at ${server.baseURL} sent ${what} within ${ms} ms.`,
  );
}

/** 503 for a remote model asked for while the device is offline: local models go on. */
export function offline(server: RemoteServer): ApiError {
  return new ApiError(
    503,
    'server_error',
    'upstream_offline',
    null,
    `This device is offline: the remote server at ${server.baseURL} cannot be reached. Local models still work.`,
  );
}
