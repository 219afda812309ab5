/**
 * intab's runtime cache: its lazy assets (web-llm, wllama's JS and wasm, pdf.js, o200k, web-xgrammar,
 * Pyodide; `src/common/lazy-assets.ts`) are never precached, and are kept here the first time a
 * feature fetches them, so whatever a page has used once works offline after. Part of `installIntab`,
 * so an app's own service worker (workbox or not) gets it too.
 */
import { LAZY_ASSET_CACHE, lazyAssetKind } from '../src/common/lazy-assets';
import { PYTHON_ASSET_PATH, SANDBOX_SCRIPT } from '../src/sandbox/protocol';
import { bodyFits, typeFits } from './asset-check';
import { type FetchScope, routeFetch } from './fetch-route';
import type { IsolationMode } from './isolation';

export { LAZY_ASSET_CACHE };

const SANDBOX_PATH = `${PYTHON_ASSET_PATH}${SANDBOX_SCRIPT}`;

/**
 * The byte sizes of the build's hashed lazy assets, by path from its base (`assets/pdfjs-….js`):
 * `intab/vite` defines it when it bundles the service worker; elsewhere lengths go unchecked.
 */
declare const __INTAB_LAZY_SIZES__: Readonly<Record<string, number>> | undefined;

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
        ? cacheFirst(request, base)
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

/**
 * A hashed file: any cache's copy (the app's precache included), else the network's, kept when it
 * is the file. A copy that cannot be (an HTML page kept by an older worker) is dropped and fetched again.
 */
async function cacheFirst(request: Request, base: string): Promise<Response> {
  const path = new URL(request.url).pathname;
  const hit = await caches.match(request);
  if (hit && typeFits(path, hit)) return hit;
  if (hit) await forget(request);
  const response = await fetch(request);
  await keep(request, response.clone(), expectedBytes(path, base));
  return response;
}

/** The size the build gave `pathname`'s file, if it did. */
function expectedBytes(pathname: string, base: string): number | undefined {
  const sizes = typeof __INTAB_LAZY_SIZES__ === 'undefined' ? undefined : __INTAB_LAZY_SIZES__;
  const key = pathname.slice(base.length);
  return sizes && pathname.startsWith(base) && Object.hasOwn(sizes, key) ? sizes[key] : undefined;
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
  if (typeFits(new URL(request.url).pathname, response)) {
    const old = await (await caches.open(LAZY_ASSET_CACHE)).match(request);
    // Rewriting ~10 MB of Pyodide on every start would cost more than the check.
    if (!old || versionOf(old) !== versionOf(response) || !versionOf(response))
      await keep(request, response.clone(), undefined);
  }
  return response;
}

/** What identifies a version of a file without reading it: its validators and length. */
function versionOf(response: Response): string {
  const h = response.headers;
  const parts = [h.get('etag'), h.get('last-modified'), h.get('content-length')];
  return parts.some((p) => p) ? parts.join('|') : '';
}

/**
 * Keeps `response` (a copy of what the page gets) if it is the file `request` names: a 200 of the
 * type its extension says, not HTML, as long as the build says, a wasm module for `.wasm`. Anything
 * else (an SPA host's `index.html`, a portal's page, a partial or opaque answer) is passed on to the
 * page all the same, and not kept: the next request fetches again.
 */
async function keep(request: Request, response: Response, expected: number | undefined): Promise<void> {
  const path = new URL(request.url).pathname;
  if (!typeFits(path, response)) {
    // An unread copy would hold the whole body in memory until collected. Not awaited: a clone's
    // cancel settles only once the page's side is done too.
    response.body?.cancel().catch(() => {});
    return;
  }
  try {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!bodyFits(path, bytes, expected)) return;
    const { status, statusText, headers } = response;
    await (await caches.open(LAZY_ASSET_CACHE)).put(
      request,
      new Response(bytes, { status, statusText, headers }),
    );
  } catch {
    // A body cut short, or out of quota: the asset was served all the same; only offline use is lost.
  }
}

async function forget(request: Request): Promise<void> {
  try {
    await (await caches.open(LAZY_ASSET_CACHE)).delete(request);
  } catch {
    // Storage unavailable: the network's answer is served all the same.
  }
}
