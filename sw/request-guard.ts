/**
 * Refuses `/v1/*` requests that another site can make the browser send, before anything is read or
 * forwarded (`forwardToEngine` asks first, so every fetch handler that routes to the engine gets it):
 * without this, any page the user visits could start a multi-GB model download or write to the store
 * with a plain `<form method=post>`.
 *
 * What a service worker sees, recorded in Chromium 156 (app at http://127.0.0.1:P, the other site at
 * http://localhost:Q; tests/e2e/security.test.ts keeps the form case honest):
 * - The app's own `fetch`: mode `cors` (`no-cors` if asked), a `clientId`, and no `Origin` and no
 *   `Sec-Fetch-*` header at all; the network stack adds those after the service worker. A string body
 *   without a content type arrives as `text/plain;charset=UTF-8`, a CORS-safelisted form type.
 * - A cross-site `<form method=post>` (any enctype): mode `navigate`, destination `document`, and it
 *   does carry `Origin: http://localhost:Q` (still no `Sec-Fetch-*`).
 * - A cross-site `fetch(…, {mode: 'no-cors'})`, and a cross-site `<iframe>` of `/v1/…`: never reach
 *   this service worker (only its own clients' requests and top-level navigations do; a third-party
 *   iframe gets a partitioned registration) but go to the network, where `vite preview` answers 503.
 *
 * So the rules: every navigation is refused (the one way in from another site, and `/v1` is an API,
 * not a page: even a harmless `GET /v1/models` typed in the address bar gets the 403); an `Origin`
 * that is not ours is refused; a `Sec-Fetch-Site` other than `same-origin` or `none` is refused
 * (never visible in Chromium 156, kept for browsers that expose it). Content type alone is not a
 * rule: a form type with no `Origin` is exactly what the app's own header-less `fetch` sends.
 */
import { ApiError } from '../src/common/api-error';

/** The parts of a fetch event's request that the rules read (a Node test cannot build a `navigate` Request). */
export type GuardedRequest = Pick<Request, 'mode' | 'headers'>;

/** `Sec-Fetch-Site` values that mean the request started on this origin (or with the user). */
const FIRST_PARTY_SITES = new Set(['same-origin', 'none']);

/**
 * Returns the 403 to answer `request` with when another site may have started it, else null.
 * `origin` is the service worker's own (`self.location.origin`).
 *
 * @example
 * const refused = refuseCrossSite(event.request, self.location.origin);
 * if (refused) return toErrorResponse(refused); // 403 cross_site_request
 */
export function refuseCrossSite(request: GuardedRequest, origin: string): ApiError | null {
  if (request.mode === 'navigate') {
    return crossSite(
      "intab's API answers fetch() calls from this app's own pages only, never a navigation (a link, a form post, a typed URL).",
    );
  }
  const from = request.headers.get('origin');
  if (from !== null && from !== origin) {
    return crossSite(`Cross-origin request refused: intab's API answers ${origin} only, not ${from}.`);
  }
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && !FIRST_PARTY_SITES.has(site)) {
    return crossSite(
      `Cross-site request refused (Sec-Fetch-Site: ${site}): intab's API answers ${origin} only.`,
    );
  }
  return null;
}

function crossSite(message: string): ApiError {
  return new ApiError(403, 'invalid_request_error', 'cross_site_request', null, message);
}
