/**
 * `intab/sw`: intab's part of a service worker, for an app's own service worker (workbox or not)
 * as much as for intab's. It routes same-origin `/v1/*` to the engine worker over a MessagePort
 * that a page hands over, and leaves every other request to the app's own handlers.
 */
import { isMessage, type PageToSwMessage } from '../src/worker/protocol';
import { EngineLinks } from './engine-links';
import { forwardToEngine } from './forward';
import { SW_TIMING } from './timing';

export interface InstallIntabOptions {
  /** The API's path prefix; `/v1/` as OpenAI's. */
  apiPrefix?: string;
  /**
   * Take over at once (`skipWaiting()` on install, `clients.claim()` on activate), so the very first
   * load and a Shift+reload are controlled without a second reload. Default true; turn it off when
   * the app manages its own updates (it must then claim clients itself before `intab.ready`).
   */
  claim?: boolean;
}

export interface IntabServiceWorker {
  /** Whether intab answers this request (it then calls `respondWith` itself). */
  handles(request: Request): boolean;
  /** The API prefix, e.g. to keep it out of a navigation fallback's routes. */
  readonly apiPrefix: string;
}

/**
 * Adds intab's listeners to the service worker. Call it before the app's own routes (workbox's
 * `precacheAndRoute`, `registerRoute`…): the first fetch listener to call `respondWith` wins.
 *
 * @example
 * // sw.ts, built by the app (vite-plugin-pwa injectManifest, workbox-build, …)
 * import { installIntab } from 'intab/sw';
 * import { precacheAndRoute } from 'workbox-precaching';
 * declare const self: ServiceWorkerGlobalScope;
 * installIntab(self);
 * precacheAndRoute(self.__WB_MANIFEST);
 */
export function installIntab(
  scope: ServiceWorkerGlobalScope,
  opts: InstallIntabOptions = {},
): IntabServiceWorker {
  const apiPrefix = opts.apiPrefix ?? '/v1/';
  const links = new EngineLinks(scope.clients, SW_TIMING);
  const handles = (request: Request): boolean => {
    const url = new URL(request.url);
    return url.origin === scope.location.origin && url.pathname.startsWith(apiPrefix);
  };

  if (opts.claim !== false) {
    scope.addEventListener('install', () => void scope.skipWaiting());
    scope.addEventListener('activate', (event) => event.waitUntil(scope.clients.claim()));
  }

  scope.addEventListener('message', (event) => {
    const source = event.source && 'id' in event.source ? event.source : null;
    const port = event.ports[0];
    if (isMessage<Extract<PageToSwMessage, { type: 'port' }>>(event.data, 'port') && port) {
      links.adopt(port, source?.id ?? null, { leader: event.data.leader === true });
    } else if (isMessage<PageToSwMessage>(event.data, 'claim')) {
      // A Shift+reload bypasses the service worker, and `activate` never runs again to claim the page.
      event.waitUntil(scope.clients.claim());
    }
  });

  scope.addEventListener('fetch', (event) => {
    if (!handles(event.request)) return;
    event.respondWith(forwardToEngine(event.request, event.clientId, links, SW_TIMING));
  });

  return { handles, apiPrefix };
}
