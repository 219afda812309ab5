/**
 * Fetch objects ⇄ plain transferable data, for both ends of the port. Pure Fetch/Streams: it runs in
 * the service worker, the engine worker and Node tests alike.
 */

import * as Comlink from 'comlink';
import { readBodyCapped } from '../core/http/capped-read';
import type { BodyPuller, SerializedRequest, SerializedResponse } from './protocol';

/** Methods whose Request may not carry a body (the constructor throws on one). */
const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * Reads a Request into plain data. The body is read whole (API requests are small JSON documents),
 * but never past `maxBytes`: over it, the read stops and the core's 413 is thrown, so the service
 * worker never holds a runaway upload. One read, no copy of the Request first.
 *
 * @example
 * const data = await serializeRequest(event.request, 'req_1', DEFAULT_MAX_BODY_BYTES);
 */
export async function serializeRequest(
  req: Request,
  id: string,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<SerializedRequest> {
  // `body === null`: a request without one. Firefox's requests have no `body` at all (undefined):
  // those are read through readBodyCapped's Blob path.
  const body =
    BODYLESS.has(req.method) || req.body === null ? null : (await readBodyCapped(req, maxBytes)).buffer;
  return { id, method: req.method, url: req.url, headers: [...req.headers], body };
}

/**
 * Rebuilds a Request on the far side. `signal` lets the receiver abort work the caller gave up on.
 *
 * @example
 * const req = deserializeRequest(data, controller.signal);
 */
export function deserializeRequest(data: SerializedRequest, signal?: AbortSignal): Request {
  const body = data.body && data.body.byteLength > 0 ? data.body : null;
  return new Request(data.url, { method: data.method, headers: data.headers, body, signal });
}

/** Transfer list for a {@link SerializedRequest} (its body buffer moves instead of being copied). */
export function requestTransferables(data: SerializedRequest): Transferable[] {
  return data.body ? [data.body] : [];
}

/**
 * Whether this realm can move a ReadableStream through postMessage. Chromium and Firefox can; older
 * Safari throws a DataCloneError, which comlink would report as "Unserializable return value".
 */
export const canTransferStreams: boolean = (() => {
  try {
    const probe = new ReadableStream();
    structuredClone(probe, { transfer: [probe as unknown as Transferable] });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Turns the core's Response into transferable data: the body stream itself is moved, not copied,
 * so it keeps streaming after this call returns, and a cancel on the far side reaches it. Where
 * streams cannot move, the body is exposed as a {@link BodyPuller} proxy instead.
 *
 * @example
 * return serializeResponse(await server.fetch(req)); // from a comlink-exposed method
 */
export function serializeResponse(res: Response, transferStreams = canTransferStreams): SerializedResponse {
  const head = { status: res.status, statusText: res.statusText, headers: [...res.headers] };
  if (!res.body) return { ...head, body: null };
  if (!transferStreams) {
    const { port1, port2 } = new MessageChannel();
    Comlink.expose(
      pullerOf(res.body, () => port1.close()),
      port1,
    );
    return Comlink.transfer({ ...head, body: null, pull: port2 }, [port2]);
  }
  const data: SerializedResponse = { ...head, body: res.body };
  return Comlink.transfer(data, [res.body as unknown as Transferable]);
}

/**
 * Builds the Response the page receives from a {@link SerializedResponse}.
 *
 * @example
 * event.respondWith(api.handle(data).then(deserializeResponse));
 */
export function deserializeResponse(data: SerializedResponse): Response {
  const body = data.body ?? (data.pull ? pulledStream(data.pull) : null);
  return new Response(body, { status: data.status, statusText: data.statusText, headers: data.headers });
}

/** Releases the body of a response nobody will read, so the core stops generating into it. */
export function discardBody(data: SerializedResponse, reason: string): void {
  data.body?.cancel(reason).catch(() => {});
  if (data.pull) {
    const puller = Comlink.wrap<BodyPuller>(data.pull);
    puller.cancel(reason).then(
      () => data.pull?.close(),
      () => data.pull?.close(),
    );
  }
}

function pullerOf(body: ReadableStream<Uint8Array>, done: () => void): BodyPuller {
  const reader = body.getReader();
  return {
    read: async () => {
      const { done: ended, value } = await reader.read();
      if (ended) {
        // Let the answer go out first; closing the port now would drop it.
        setTimeout(done, 0);
        return { done: true };
      }
      // Copied, not transferred: the chunk may be a view into a buffer its producer still uses.
      return { done: false, value };
    },
    cancel: async (reason) => {
      await reader.cancel(reason);
      setTimeout(done, 0);
    },
  };
}

function pulledStream(port: MessagePort): ReadableStream<Uint8Array> {
  const puller = Comlink.wrap<BodyPuller>(port);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await puller.read();
      if (done || !value) {
        controller.close();
        port.close();
      } else {
        controller.enqueue(value);
      }
    },
    async cancel(reason) {
      await puller.cancel(String(reason ?? '')).catch(() => {});
      port.close();
    },
  });
}
