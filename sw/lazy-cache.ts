/**
 * intab's runtime cache: its lazy assets (web-llm, wllama's JS and wasm, pdf.js, o200k, web-xgrammar,
 * Pyodide; `src/common/lazy-assets.ts`) are never precached, and are kept here the first time a
 * feature fetches them, so whatever a page has used once works offline after. Part of `installIntab`,
 * so an app's own service worker (workbox or not) gets it too.
 */
import { lazyAssetKind } from '../src/common/lazy-assets';
import { PYTHON_ASSET_PATH, SANDBOX_SCRIPT } from '../src/sandbox/protocol';
import { type FetchScope, routeFetch } from './fetch-route';
import type { IsolationMode } from './isolation';

/** Where lazily fetched assets are kept (the demo's shell kept its hashed assets here before, too). */
export const LAZY_ASSET_CACHE = 'intab-assets';

const SANDBOX_PATH = `${PYTHON_ASSET_PATH}${SANDBOX_SCRIPT}`;

/**
 * Adds the listener. Call it after `/v1/*`'s and the sandbox script's, which answer their own.
 *
 * @example
 * routeLazyAssets(self);
 */
export function routeLazyAssets(scope: FetchScope, isolation: IsolationMode = false): void {
  const base = basePathOf(scope.location);
  routeFetch(
    scope,
    isolation,
    (request, origin) => isLazyRequest(request, origin, base),
    (request) =>
      lazyAssetKind(new URL(request.url).pathname, base) === 'hashed'
        ? cacheFirst(request)
        : networkFirst(request),
  );
}

/**
 * Where the build is served: the service worker's own folder (it is built at the build's root),
 * `/` when the scope does not say.
 *
 * @example
 * basePathOf({ origin: 'https://a.test', href: 'https://a.test/app/sw.js' }); // '/app/'
 */
export function basePathOf(location: { readonly origin: string; readonly href?: string }): string {
  return location.href ? new URL('./', location.href).pathname : '/';
}

/**
 * Whether {@link routeLazyAssets} answers `request`: a same-origin GET of a lazy asset of the build
 * at `basePath`. The sandbox script is answered by routePythonSandbox (with its CSP), and a second
 * respondWith would throw.
 */
export function isLazyRequest(request: Request, origin: string, basePath = '/'): boolean {
  if (request.method !== 'GET') return false;
  const url = new URL(request.url);
  if (url.origin !== origin || url.pathname === SANDBOX_PATH) return false;
  return lazyAssetKind(url.pathname, basePath) !== null;
}

/** A hashed file: any cache's copy (the app's precache included), else the network's, kept. */
async function cacheFirst(request: Request): Promise<Response> {
  const hit = await caches.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  // A partial (206) or opaque answer is not the file; it is passed on, not kept.
  if (response.status === 200) await keep(request, response.clone());
  return response;
}

/**
 * A file whose name carries no hash (Pyodide's): the network's answer while online (the HTTP cache
 * revalidates it), kept when it differs from the cached copy; the cached copy when the network fails.
 *
 * @example
 * await networkFirst(new Request('/intab-python/pyodide.asm.wasm'));
 */
export async function networkFirst(request: Request): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(request);
  } catch (err) {
    const hit = await caches.match(request);
    if (hit) return hit;
    throw err;
  }
  if (response.status === 200) {
    const old = await (await caches.open(LAZY_ASSET_CACHE)).match(request);
    // Rewriting ~10 MB of Pyodide on every start would cost more than the check.
    if (!old || versionOf(old) !== versionOf(response) || !versionOf(response))
      await keep(request, response.clone());
  }
  return response;
}

/** What identifies a version of a file without reading it: its validators and length. */
function versionOf(response: Response): string {
  const h = response.headers;
  const parts = [h.get('etag'), h.get('last-modified'), h.get('content-length')];
  return parts.some((p) => p) ? parts.join('|') : '';
}

async function keep(request: Request, response: Response): Promise<void> {
  try {
    await (await caches.open(LAZY_ASSET_CACHE)).put(request, response);
  } catch {
    // Out of quota: the asset was served all the same; only offline use is lost.
  }
}
