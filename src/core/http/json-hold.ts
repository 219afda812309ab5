/**
 * DESIGN.md §4: a service worker's `respondWith` may not stay pending for minutes, so a long
 * non-streaming answer sends its headers early and its JSON when it is ready.
 */

/**
 * Answers with `finished` when it settles within `holdMs`; past that, with 200 JSON headers now and
 * `finished`'s body once it resolves. Cancelling that late body (Chromium does once the page has
 * aborted its fetch) calls `onCancel`, which should stop the work behind `finished`.
 *
 * @example
 * return holdJson(run(), deps.jsonHoldMs, () => abort.abort());
 */
export async function holdJson(
  finished: Promise<Response>,
  holdMs: number,
  onCancel: () => void,
): Promise<Response> {
  const early = await within(finished, holdMs);
  if (early) return early;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const bytes = new Uint8Array(await (await finished).arrayBuffer());
      if (cancelled) return;
      controller.enqueue(bytes);
      controller.close();
    },
    cancel() {
      cancelled = true;
      onCancel();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

/**
 * `work`'s value if it settles within `ms`, else null (then `work` goes on; nothing cancels it).
 *
 * @example
 * const early = await within(finished, 60_000); // null: answer with early headers
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One request's work: its abort signal, a way to stop it, and to stop following the request. */
export interface RequestWork {
  signal: AbortSignal;
  stop: () => void;
  release: () => void;
}

/**
 * An abort controller for one request's work that follows the request's own signal (aborted by the
 * engine worker when the service worker gives up on the request). `stop()` aborts it from anywhere
 * else too (the client cancelled the body); `release()` stops following once the work is done.
 *
 * @example
 * const work = followRequest(request.signal);
 * await run(work.signal);
 * work.release();
 */
export function followRequest(requestSignal: AbortSignal): RequestWork {
  const abort = new AbortController();
  const stop = (): void => abort.abort(new DOMException('The client went away.', 'AbortError'));
  if (requestSignal.aborted) stop();
  else requestSignal.addEventListener('abort', stop, { once: true });
  return { signal: abort.signal, stop, release: () => requestSignal.removeEventListener('abort', stop) };
}

/**
 * Resolves when `work` settles or `signal` aborts, whichever is first. A load is shared by every
 * request for its model, so a client that goes away stops waiting for it but does not stop it.
 *
 * @example
 * await untilAborted(engine.load(model, onProgress), signal);
 * if (signal.aborted) return;
 */
export function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
