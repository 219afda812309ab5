/**
 * The one way the remote engine reaches a server: secrets sent to `baseURL` only
 * (`credentials: 'omit'`, redirects followed only within `baseURL`'s origin and never to intab's
 * own), the caller's abort reaching the connection, and a bound on the first byte.
 */
import {
  offline,
  quote,
  unreachable,
  upstreamError,
  upstreamStatusError,
  upstreamTimeout,
} from './remote-errors';
import { REMOTE_MAX_BODY_BYTES, REMOTE_MAX_REDIRECTS, type RemoteServer } from './remote-options';

/** A `fetch` as the engine calls it (tests pass a fake). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** What one upstream call needs. */
export interface RemoteCall {
  server: RemoteServer;
  /** Under `baseURL`, e.g. `/chat/completions`. */
  path: string;
  method: 'GET' | 'POST';
  body?: unknown;
  signal?: AbortSignal;
  fetch: FetchLike;
}

/** The origin intab itself is served from (a redirect there would hand it the key), if any. */
function ownOrigin(): string | null {
  const loc = (globalThis as { location?: { origin?: string } }).location;
  return typeof loc?.origin === 'string' && loc.origin !== 'null' ? loc.origin : null;
}

function headersFor(server: RemoteServer, hasBody: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json, text/event-stream', ...server.headers };
  if (hasBody) h['content-type'] = 'application/json';
  if (server.apiKey) h.authorization = `Bearer ${server.apiKey}`;
  return h;
}

/**
 * Sends one request and answers the upstream Response once its status is 2xx. Non-2xx answers
 * become the mapped ApiError (see remote-errors.ts); the caller's abort rethrows its reason.
 * The returned `abort` stops the connection (the body reader's cancel does too).
 *
 * @example
 * const { res } = await remoteFetch({ server, path: '/models', method: 'GET', fetch });
 */
export async function remoteFetch(call: RemoteCall): Promise<{ res: Response; abort: () => void }> {
  const { server, signal } = call;
  if ((globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine === false) throw offline(server);
  signal?.throwIfAborted();
  const ctl = new AbortController();
  const onAbort = () => ctl.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const ms = server.firstByteTimeoutMs;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, ms);
  const done = () => {
    clearTimeout(timer);
  };
  const abort = () => {
    done();
    signal?.removeEventListener('abort', onAbort);
    ctl.abort();
  };
  try {
    let url = `${server.baseURL}${call.path}`;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let hop = 0; ; hop++) {
      let res: Response;
      try {
        res = await call.fetch(url, {
          method: call.method,
          headers: headersFor(server, body !== undefined),
          body,
          credentials: 'omit',
          redirect: 'manual',
          referrerPolicy: 'no-referrer',
          cache: 'no-store',
          signal: ctl.signal,
        });
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        if (timedOut) throw upstreamTimeout(server, ms, 'no first byte');
        throw unreachable(server, err);
      }
      const next = redirectTarget(res, url, server);
      if (next === null) {
        done();
        if (res.ok) {
          return { res, abort };
        }
        const text = await readText(res, server, signal).catch(() => '');
        throw upstreamStatusError(server, res.status, text, res.headers.get('retry-after'));
      }
      if (hop >= REMOTE_MAX_REDIRECTS)
        throw upstreamError(server, `redirected more than ${REMOTE_MAX_REDIRECTS} times.`);
      url = next;
    }
  } catch (err) {
    abort();
    throw err;
  }
}

/**
 * Where a redirect leads, when it may be followed (same origin as `baseURL`, not intab's own
 * origin); null when `res` is no redirect. A browser hides a manual redirect's target (an
 * `opaqueredirect`), so there it is never followed: the error names the fix.
 */
function redirectTarget(res: Response, from: string, server: RemoteServer): string | null {
  const redirect =
    res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400 && res.status !== 304);
  if (!redirect) return null;
  const location = res.headers.get('location');
  const target = location ? new URL(location, from) : null;
  const own = ownOrigin();
  if (!target || target.origin !== server.origin || target.origin === own)
    throw upstreamError(
      server,
      `redirected the request${target ? ` to ${quote(target.origin, server)}` : ''}; intab follows redirects only within ${server.origin} (the API key goes nowhere else). Use the final URL as baseURL.`,
    );
  return target.href;
}

/** A non-streaming body as text, at most {@link REMOTE_MAX_BODY_BYTES}. */
export async function readText(res: Response, server: RemoteServer, signal?: AbortSignal): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let out = '';
  let bytes = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) return out + decoder.decode();
      bytes += value.byteLength;
      if (bytes > REMOTE_MAX_BODY_BYTES)
        throw upstreamError(server, `answered more than ${REMOTE_MAX_BODY_BYTES} bytes.`);
      out += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** A JSON body; anything else is a 502 quoting what came. */
export async function readJson(res: Response, server: RemoteServer, signal?: AbortSignal): Promise<unknown> {
  const text = await readText(res, server, signal);
  try {
    return JSON.parse(text);
  } catch {
    throw upstreamError(server, `answered something that is not JSON: ${quote(text, server)}`);
  }
}
