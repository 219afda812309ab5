/**
 * Reading a body whole, but never more of it than a cap: request bodies (in the core and in the
 * service worker, before either buffers one) and fetched `file_url` files.
 */
import { ApiError } from '../../common/api-error';

/**
 * The default `maxBodyBytes` of the core, and the service worker's cap on what it buffers before
 * forwarding a request: 16 MiB.
 */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Reads `stream` to its end into one array. Once more than `maxBytes` have arrived the stream is
 * cancelled (its producer stops) and `tooLarge()` is thrown: the bytes past the cap are never held.
 *
 * @example
 * const bytes = await readStreamCapped(res.body, 1024, () => new Error('over 1 KiB'));
 */
export async function readStreamCapped(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!stream) return new Uint8Array();
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const only = chunks.length === 1 ? chunks[0] : undefined;
  // One chunk that is its whole buffer (a body made from one array): no second 16 MiB copy in the turn.
  if (
    only &&
    only.buffer instanceof ArrayBuffer &&
    only.byteOffset === 0 &&
    only.byteLength === only.buffer.byteLength
  )
    return only as Uint8Array<ArrayBuffer>;
  return concatBytes(chunks);
}

/**
 * The chunks of a body, one after another, in one array.
 *
 * @example
 * concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])]) // → Uint8Array [1, 2, 3]
 */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/**
 * Reads a request body whole, or throws OpenAI's 413: at once when its Content-Length says it is
 * over `maxBytes`, else as soon as the running count passes it (Content-Length is often absent: a
 * service worker never sees it for a page's `fetch`).
 *
 * @example
 * const bytes = await readBodyCapped(request, DEFAULT_MAX_BODY_BYTES);
 */
export async function readBodyCapped(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) throw requestTooLarge(maxBytes);
  if (!hasBodyStream(request)) return readBlobCapped(request, maxBytes);
  return readStreamCapped(request.body, maxBytes, () => requestTooLarge(maxBytes));
}

/**
 * Whether a Request exposes its body as a stream. Firefox has no `Request.prototype.body` (its
 * requests answer `undefined` there, where others answer a stream or null): reading `body` alone, a
 * POST looked empty and every create was a 400 (issue 42).
 *
 * @example
 * hasBodyStream(new Request(url, { method: 'POST', body: '{}' })); // false in Firefox
 */
export function hasBodyStream(request: Request): boolean {
  return request.body !== undefined;
}

/**
 * A body read without `Request.body`: as a Blob first, whose size is known before any byte is copied
 * into this realm, so an upload over the cap is refused without a second copy of it.
 */
async function readBlobCapped(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const blob = await request.blob();
  if (blob.size > maxBytes) throw requestTooLarge(maxBytes);
  return new Uint8Array(await blob.arrayBuffer());
}

/**
 * The 413 for a body over the cap, as the core and the service worker both send it.
 *
 * @example
 * throw requestTooLarge(DEFAULT_MAX_BODY_BYTES);
 */
export function requestTooLarge(maxBytes: number): ApiError {
  return new ApiError(
    413,
    'invalid_request_error',
    'request_too_large',
    null,
    `Request body too large: the maximum is ${maxBytes} bytes.`,
  );
}
