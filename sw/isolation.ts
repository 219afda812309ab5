/**
 * Cross-origin isolation from the service worker, for hosts that cannot send COOP/COEP (GitHub
 * Pages, most CDNs): the responses it serves for the app's own origin get
 * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy` (`require-corp`, or
 * `credentialless`), as coi-serviceworker does. A page loaded through the worker (every load after
 * the first) is then `crossOriginIsolated`, so llama.cpp gets SharedArrayBuffer and its threads; so
 * are the workers whose scripts it serves (the engine worker, the Python sandbox).
 */

/** How to isolate: the COEP value to send, or false to leave every response as the host sent it. */
export type IsolationMode = 'require-corp' | 'credentialless' | false;

/** Statuses whose responses carry no body (a Response with one throws). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The response with COOP and COEP added where the host set none; as it is for `false`, and for an
 * opaque or error response (whose headers cannot be rewritten). A response that followed redirects
 * is answered as a redirect to its final URL, whose own response then gets the headers.
 *
 * @example
 * return isolate(await fetch(request), 'require-corp');
 */
export function isolate(response: Response, mode: IsolationMode): Response {
  if (
    mode === false ||
    response.type === 'opaque' ||
    response.type === 'opaqueredirect' ||
    response.status === 0
  )
    return response;
  const h = response.headers;
  if (h.get('cross-origin-embedder-policy') && h.get('cross-origin-opener-policy')) return response;
  // A Response built here has no URL: the page would take the request's URL for the final one, and
  // resolve a module's relative imports (a worker its base) against it. Point the page at the final
  // URL instead; that request comes back through the worker and is isolated, unredirected.
  if (response.redirected && response.url) {
    response.body?.cancel().catch(() => {});
    return Response.redirect(response.url, 302);
  }
  const headers = new Headers(h);
  if (!headers.has('cross-origin-opener-policy')) headers.set('cross-origin-opener-policy', 'same-origin');
  if (!headers.has('cross-origin-embedder-policy')) headers.set('cross-origin-embedder-policy', mode);
  return new Response(NULL_BODY.has(response.status) ? null : response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
