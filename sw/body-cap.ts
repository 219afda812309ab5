/**
 * Caps a request body before the service worker buffers it to send to the engine worker
 * (`serializeRequest` reads it whole): a page's runaway upload gets the core's own 413 here, and is
 * never held in full by the service worker first.
 */
import { DEFAULT_MAX_BODY_BYTES, readBodyCapped } from '../src/core/capped-read';

/** Methods whose Request may not carry a body (the constructor throws on one). */
const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * Reads `request`'s body with a running count and returns an equivalent Request over the bytes read,
 * or throws the 413 `ApiError` once the body passes `maxBytes` (the core's default cap: the engine
 * worker runs the core with it). Bodyless requests come back as they are.
 *
 * The copy keeps method, URL and headers, the parts `serializeRequest` sends; the `Request`
 * constructor drops forbidden headers (`sec-ch-ua*`, which Chromium shows the service worker), and
 * the core reads none of them.
 *
 * @example
 * const data = await serializeRequest(await capRequestBody(event.request), id);
 */
export async function capRequestBody(request: Request, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<Request> {
  if (BODYLESS.has(request.method) || !request.body) return request;
  const bytes = await readBodyCapped(request, maxBytes);
  return new Request(request.url, { method: request.method, headers: request.headers, body: bytes });
}
