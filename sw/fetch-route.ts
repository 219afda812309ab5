/**
 * The shape the service worker's own fetch routes share (the Python sandbox's script, the lazy
 * assets): a listener that answers the requests one predicate takes, isolated as the app asked.
 */
import { type IsolationMode, isolate } from './isolation';

/** A fetch listener's event, as much as the routes use. */
export interface FetchEventLike {
  request: Request;
  respondWith(r: Promise<Response>): void;
}

/** The service worker's scope, as much as the routes use. */
export interface FetchScope {
  /** `href` is the worker script's URL (where the build sits); a scope without one reads as the root. */
  readonly location: { readonly origin: string; readonly href?: string };
  addEventListener(type: 'fetch', listener: (event: FetchEventLike) => void): void;
}

/**
 * Adds a fetch listener that answers a request `takes` (given the scope's origin) with `answer`'s
 * response, isolated with `isolation`; it leaves every other request to the next listener.
 *
 * @example
 * routeFetch(self, false, isSandboxRequest, withSandboxCsp);
 */
export function routeFetch(
  scope: FetchScope,
  isolation: IsolationMode,
  takes: (request: Request, origin: string) => boolean,
  answer: (request: Request, origin: string) => Promise<Response>,
): void {
  scope.addEventListener('fetch', (event) => {
    const { request } = event;
    const origin = scope.location.origin;
    if (!takes(request, origin)) return;
    event.respondWith(answer(request, origin).then((r) => isolate(r, isolation)));
  });
}
