/**
 * Forwards one `/v1/*` request to an engine worker and turns its answer into the page's Response.
 * An SSE body is the worker's own transferred stream, passed through, so tokens flow as they are
 * generated and the page's cancel reaches the core; any other body is read whole first (see
 * `readWhole`), so a tab closing mid-answer costs a retryable 503, never a broken 200.
 */
import * as Comlink from 'comlink';
import { ApiError, serviceUnavailable, toErrorResponse } from '../src/common/api-error';
import { concatBytes, DEFAULT_MAX_BODY_BYTES } from '../src/core/http/capped-read';
import type { SerializedRequest, SerializedResponse } from '../src/worker/protocol';
import { deserializeResponse, discardBody, requestTransferables, serializeRequest } from '../src/worker/wire';
import type { EngineLink, EngineLinks } from './engine-links';
import { refuseCrossSite } from './request-guard';
import { type SwTiming, WHOLE_BODY_MS } from './timing';

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
    const { link, trusted } = await links.acquire(clientId);
    const res = deserializeResponse(await callHandle(link, trusted, data, links, timing, request.signal));
    return isEventStream(res)
      ? endWithLink(res, link, links)
      : await readWhole(res, link, links, timing.wholeBodyMs ?? WHOLE_BODY_MS);
  } catch (err) {
    return retryable(toErrorResponse(err));
  }
}

function isEventStream(res: Response): boolean {
  return res.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
}

/**
 * A 503 (no engine, or its tab went away) says `retry-after: 1` and `x-should-retry: true`: the
 * next request reaches the new leader, and the `openai` SDK retries on these headers.
 */
function retryable(res: Response): Response {
  if (res.status === 503) {
    res.headers.set('retry-after', '1');
    res.headers.set('x-should-retry', 'true');
  }
  return res;
}

const GONE = Symbol('gone');
const LATE = Symbol('late');

/**
 * Reads a non-SSE body whole before answering, racing `link.gone`. A JSON answer is small and comes
 * with its headers, but the tab running the engine may close while it is still on its way: answered
 * at once, the page would hold a 200 whose body then errors, which no SDK retries. Read first, a
 * body lost with its tab is a retryable 503. A body still arriving after `ms` (the core's
 * early-headers JSON, which may take minutes) is streamed on from where the read got to.
 */
async function readWhole(res: Response, link: EngineLink, links: EngineLinks, ms: number): Promise<Response> {
  if (!res.body) return res;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let onGone = (): void => {};
  const gone = new Promise<typeof GONE>((resolve) => {
    onGone = () => resolve(GONE);
    if (link.gone.aborted) onGone();
    else link.gone.addEventListener('abort', onGone, { once: true });
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  const head = { status: res.status, statusText: res.statusText, headers: res.headers };
  // The read in flight when the race is lost to `late` still holds the next chunk: it goes on.
  let next = reader.read();
  next.catch(() => {}); // a read abandoned to `gone` may still reject
  try {
    for (;;) {
      const step = await Promise.race([next, gone, late]);
      if (step === GONE) {
        reader.cancel(link.gone.reason).catch(() => {});
        return retryable(toErrorResponse(link.gone.reason));
      }
      if (step === LATE) return endWithLink(new Response(resumed(chunks, next, reader), head), link, links);
      if (step.done) return new Response(concatBytes(chunks), head);
      chunks.push(step.value);
      next = reader.read();
      next.catch(() => {});
    }
  } catch (err) {
    // The worker's body errored: the page would have seen a broken 200, so it gets a 503 to retry.
    return retryable(toErrorResponse(serviceUnavailable(`The engine's answer broke off: ${String(err)}`)));
  } finally {
    clearTimeout(timer);
    link.gone.removeEventListener('abort', onGone);
  }
}

/** The chunks read so far, then the read in flight, then the rest of `reader`. */
function resumed(
  chunks: Uint8Array[],
  inFlight: Promise<ReadableStreamReadResult<Uint8Array>>,
  reader: ReadableStreamDefaultReader<Uint8Array>,
) {
  let next: Promise<ReadableStreamReadResult<Uint8Array>> | null = inFlight;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
    },
    async pull(controller) {
      const { done, value } = await (next ?? reader.read());
      next = null;
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * `handle` with the three ways out that comlink lacks: a deadline, a heartbeat that notices the
 * worker's tab going away mid-call (the call itself would then hang forever), and the request's
 * abort signal. Giving up tells the worker to abort, and a body that still arrives afterwards is
 * cancelled, so the core never generates into a stream nobody reads.
 */
function callHandle(
  link: EngineLink,
  trusted: boolean,
  data: SerializedRequest,
  links: EngineLinks,
  timing: SwTiming,
  signal: AbortSignal,
): Promise<SerializedResponse> {
  // Held while the call is pending: a link retired meanwhile (a newer port from the same tab) keeps
  // its port open until this call is answered.
  const release = links.hold(link);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): boolean => {
      if (settled) return false;
      settled = true;
      release();
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
        links.heard(link);
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
    // One check at a time: a busy worker's pings may take up to busyMs, longer than the heartbeat.
    let checking = false;
    const check = (ms: number): void => {
      if (checking) return;
      checking = true;
      links
        .alive(link, ms)
        .finally(() => {
          checking = false;
        })
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
    };
    // A link taken on trust (it answered moments ago) gets its ping now, beside the call, bounded as
    // acquire's would have been (a busy worker whose tab is open gets until busyMs, see `alive`);
    // any other was pinged just before.
    if (trusted) check(timing.pingMs);
    const heartbeat = setInterval(() => check(timing.heartbeatPingMs), timing.heartbeatMs);
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
function endWithLink(res: Response, link: EngineLink, links: EngineLinks): Response {
  if (!res.body) return res;
  // Each chunk comes from the link's worker, so it counts as hearing from it: the next request of a
  // chat or a tool loop that follows a long stream then skips the ping (a round trip on its path).
  const heard = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      links.heard(link);
      controller.enqueue(chunk);
    },
  });
  const body = res.body.pipeThrough(heard, { signal: link.gone });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
