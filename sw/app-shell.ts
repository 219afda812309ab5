/**
 * Offline app shell: the build's precache manifest, a navigation fallback to index.html, and a
 * cache-first route for hashed assets that are too big to precache (web-llm's library chunk, loaded
 * lazily when a real model is picked). Model weights are cached by web-llm itself, not here.
 */
import {
  cleanupOutdatedCaches,
  createHandlerBoundToURL,
  type PrecacheEntry,
  precacheAndRoute,
} from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

/** Where lazily fetched build assets are kept; their names carry a content hash, so entries never go stale. */
export const RUNTIME_ASSET_CACHE = 'intab-assets';

/**
 * Registers the shell routes. Call after the `/v1/*` fetch listener is added, so that one answers first.
 *
 * @example
 * routeAppShell(self.__WB_MANIFEST, '/v1/');
 */
export function routeAppShell(manifest: Array<PrecacheEntry | string>, apiPrefix: string): void {
  precacheAndRoute(manifest);
  cleanupOutdatedCaches();
  const precachedIndex = manifest.some((e) => (typeof e === 'string' ? e : e.url) === 'index.html');
  // `vite dev` has no manifest; createHandlerBoundToURL would throw on a URL that is not precached.
  if (precachedIndex) {
    const api = new RegExp(`^${apiPrefix}`);
    registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [api] }));
  }
  registerRoute(
    ({ url, sameOrigin, request }) =>
      sameOrigin && request.method === 'GET' && url.pathname.startsWith('/assets/'),
    ({ request }) => cacheFirst(request),
  );
}

async function cacheFirst(request: Request): Promise<Response> {
  const cache = await caches.open(RUNTIME_ASSET_CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}
