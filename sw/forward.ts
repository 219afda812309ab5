/**
 * Forwards one `/v1/*` request to an engine worker and turns its answer into the page's Response.
 * The body is the worker's own transferred stream: it is passed through, never re-read, so tokens
 * flow as they are generated and the page's cancel reaches the core.
 */
import * as Comlink from 'comlink';
import { ApiError, toErrorResponse } from '../src/common/api-error';
import { DEFAULT_MAX_BODY_BYTES } from '../src/core/shared/capped-read';
import type { SerializedRequest, SerializedResponse } from '../src/worker/protocol';
import { deserializeResponse, discardBody, requestTransferables, serializeRequest } from '../src/worker/wire';
import type { EngineLink, EngineLinks } from './engine-links';
import { refuseCrossSite } from './request-guard';
import type { SwTiming } from './timing';

let counter = 0;

/**
 * Answers `request` through the engine, or with an OpenAI-shaped error (403 for a request another
 * site may have started, 413 for a body over the core's cap, 503 when no engine is reachable, 504
 * when it took too long). Never rejects: a rejected `respondWith` would show the page a network
 * error instead of something its SDK can parse.
 *
 * @example
 * event.respondWith(forwardToEngine(event.request, event.clientId, links, SW_TIMING));
 */
export async function forwardToEngine(
  request: Request,
  clientId: string,
  links: EngineLinks,
  timing: SwTiming,
): Promise<Response> {
  // First, before the body is read or an engine is asked for: another site's form post must start
  // nothing. Fetch handlers route only the service worker's own origin here, so the URL's is ours.
  const refused = refuseCrossSite(request, new URL(request.url).origin);
  if (refused) return toErrorResponse(refused);
  try {
    // Capped as it is read: a runaway upload is a 413 before the service worker holds it.
    const data = await serializeRequest(
      request,
      `sw-${Date.now().toString(36)}-${++counter}`,
      DEFAULT_MAX_BODY_BYTES,
    );
    const link = await links.acquire(clientId);
    return endWithLink(
      deserializeResponse(await callHandle(link, data, links, timing, request.signal)),
      link,
    );
  } catch (err) {
    return toErrorResponse(err);
  }
}

/**
 * `handle` with the three ways out that comlink lacks: a deadline, a heartbeat that notices the
 * worker's tab going away mid-call (the call itself would then hang forever), and the request's
 * abort signal. Giving up tells the worker to abort, and a body that still arrives afterwards is
 * cancelled, so the core never generates into a stream nobody reads.
 */
function callHandle(
  link: EngineLink,
  data: SerializedRequest,
  links: EngineLinks,
  timing: SwTiming,
  signal: AbortSignal,
): Promise<SerializedResponse> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(deadline);
      clearInterval(heartbeat);
      signal.removeEventListener('abort', onAbort);
      link.closed.removeEventListener('abort', onClosed);
      fn();
      return true;
    };
    const giveUp = (err: unknown): void => {
      if (settle(() => reject(err))) link.api.abort(data.id).catch(() => {});
    };

    link.api.handle(Comlink.transfer(data, requestTransferables(data))).then(
      (res) => {
        if (!settle(() => resolve(res))) discardBody(res, 'The service worker gave up on this request.');
      },
      (err: unknown) => settle(() => reject(err)),
    );

    const deadline = setTimeout(() => {
      giveUp(
        new ApiError(
          504,
          'server_error',
          'timeout',
          null,
          `The engine did not answer within ${timing.handleMs} ms.`,
        ),
      );
    }, timing.handleMs);
    const heartbeat = setInterval(() => {
      links
        .alive(link, timing.heartbeatPingMs)
        .then(
          (ok) =>
            ok ||
            giveUp(
              new ApiError(
                503,
                'server_error',
                'engine_unavailable',
                null,
                'The engine worker stopped answering (was its tab closed?).',
              ),
            ),
          giveUp,
        );
    }, timing.heartbeatMs);
    const onAbort = (): void => giveUp(signal.reason);
    signal.addEventListener('abort', onAbort);
    // The link was dropped (its tab closed, it missed a ping, or it was replaced): our end of its
    // port is closed, so no answer can come, and waiting for the next heartbeat would only delay that.
    const onClosed = (): void => giveUp(link.closed.reason);
    if (link.closed.aborted) onClosed();
    else link.closed.addEventListener('abort', onClosed, { once: true });
  });
}

/**
 * Errors the body (503) if the worker's tab is known to be gone while the page still reads it
 * (`link.gone`: its port closed, or a new leader took over). In Chromium a stream transferred from a
 * worker that died neither closes nor errors, the same silent death as comlink's ports, so a page
 * reading a response from a leader tab that just closed could wait forever (an early run of the
 * leader e2e test hung past its 60 s limit without this guard). Piping through an identity stream keeps tokens flowing as they
 * come and still passes the page's cancel back to the worker's stream.
 */
function endWithLink(res: Response, link: EngineLink): Response {
  if (!res.body) return res;
  const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(), { signal: link.gone });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
