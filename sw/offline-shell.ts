/**
 * The offline shell of intab's own service worker (the one `intab/vite` builds when the app has
 * none): the build's precache manifest (the app's shell and intab's runtime, never the lazy assets
 * of `src/common/lazy-assets.ts`) fetched at install into one cache per manifest, served cache
 * first. A navigation to a precached page (a folder's `index.html`) is answered from the cache; any
 * other goes to the network, and only when the network fails gets the SPA's `index.html` (never a
 * file's URL or the API: see {@link DEFAULT_NAVIGATE_FALLBACK_DENYLIST}). Workbox's model, in a few
 * lines, so an app that installs intab needs no workbox package.
 */

import { type IsolationMode, isolate } from './isolation';
import { ShellGenerations, type WindowClients } from './shell-generations';

/** One precached file: its URL relative to the service worker, and a revision unless the name is hashed. */
export interface ShellEntry {
  url: string;
  revision: string | null;
}

/** Every shell cache's name starts so; the rest is the manifest's own revision. */
export const SHELL_CACHE_PREFIX = 'intab-shell-';

/** The parts of a service worker's scope this uses (`self` is one; tests fake it). */
export interface ShellScope {
  readonly location: { readonly origin: string; readonly href: string };
  /** The open windows, whose build's shell is kept (shell-generations.ts); `self.clients`. */
  readonly clients?: WindowClients;
  addEventListener(
    type: 'install' | 'activate',
    listener: (event: { waitUntil(p: Promise<unknown>): void }) => void,
  ): void;
  addEventListener(
    type: 'fetch',
    listener: (event: {
      request: Request;
      respondWith(r: Promise<Response>): void;
      waitUntil?(p: Promise<unknown>): void;
    }) => void,
  ): void;
}

/** What the shell leaves alone and how it isolates what it serves. */
export interface ShellOptions {
  /** Requests answered by earlier listeners (intab's `serves`): a second respondWith would throw. */
  skip: (request: Request) => boolean;
  /**
   * COOP/COEP on the app's pages and same-origin files (see `isolation.ts`): precached ones, and the
   * rest fetched through the worker for the purpose. `false`: the host's headers, untouched.
   */
  isolation: IsolationMode;
  /**
   * Navigations never answered with the shell, even offline (workbox's option of the name), matched
   * against the path and query: e.g. `[/^\/api\//]`, so `/api/logout` always reaches the server or
   * fails. Added to {@link DEFAULT_NAVIGATE_FALLBACK_DENYLIST}.
   */
  navigateFallbackDenylist?: readonly RegExp[];
  /**
   * The app's own client-side routes (matched against the path and query), answered with the shell
   * at once, online too, as workbox's `NavigationRoute` answers every route, even one that
   * {@link DEFAULT_NAVIGATE_FALLBACK_DENYLIST} takes (a route with a dot in it); the denylist given
   * above still wins. Default none: every other navigation goes to the network first.
   */
  navigateFallbackAllowlist?: readonly RegExp[];
}

/**
 * Navigations the shell never answers: a file's URL (a name with an extension other than `.html`:
 * a link to a GGUF, a PDF, a zip downloads it, or fails offline) and intab's API.
 */
export const DEFAULT_NAVIGATE_FALLBACK_DENYLIST: readonly RegExp[] = [
  /\/[^/?]*\.(?!html?(?:\?|$))[^/.?]+(?:\?|$)/i,
  /^\/v1\//,
];

/**
 * Adds the install, activate and fetch listeners. Call after `installIntab(self)`, whose requests
 * (`/v1/*`, the lazy assets) `skip` names. An empty manifest (`vite dev`, `precache: false`)
 * precaches nothing; the isolation holds all the same.
 *
 * @example
 * routeOfflineShell(self, self.__WB_MANIFEST, { skip: intab.serves, isolation: 'require-corp' });
 */
export function routeOfflineShell(
  scope: ShellScope,
  manifest: readonly ShellEntry[],
  opts: ShellOptions,
): void {
  const { skip, isolation } = opts;
  const base = new URL('./', scope.location.href);
  // Cache keys carry the revision, so a changed file is fetched again and an unchanged one is not.
  const keyOf = (e: ShellEntry) => {
    const url = new URL(e.url, base);
    if (e.revision) url.searchParams.set('__intab_rev', e.revision);
    return url.href;
  };
  const byUrl = new Map(manifest.map((e) => [new URL(e.url, base).href, keyOf(e)]));
  const cacheName = `${SHELL_CACHE_PREFIX}${revisionOf(manifest)}`;
  const fallback = byUrl.get(new URL('index.html', base).href) ?? null;
  // The previous build's shell stays while its pages are open: their engine workers import its chunks.
  const shells =
    manifest.length > 0 ? new ShellGenerations(cacheName, SHELL_CACHE_PREFIX, base, scope.clients) : null;

  if (shells) {
    scope.addEventListener('install', (event) => event.waitUntil(precache(cacheName, manifest, keyOf, base)));
    scope.addEventListener('activate', (event) => event.waitUntil(shells.activate()));
    scope.addEventListener('fetch', (event) => shells.onFetch(event));
  }
  scope.addEventListener('fetch', (event) => {
    const { request } = event;
    if (request.method !== 'GET' || skip(request)) return;
    const asked = new URL(request.url);
    if (asked.origin !== scope.location.origin) return;
    const url = new URL(asked.pathname, asked);
    const navigate = request.mode === 'navigate';
    // A page of the precache, as workbox finds one: the URL itself, a folder's index.html, a clean URL's .html.
    const key =
      byUrl.get(url.href) ??
      (navigate
        ? byUrl.get(url.pathname.endsWith('/') ? `${url.href}index.html` : `${url.href}.html`)
        : undefined);
    const spa = navigate && fallback && !key ? shellFallback(asked, opts) : 'never';
    if (key) event.respondWith(fromShell(cacheName, key, request).then((r) => isolate(r, isolation)));
    else if (fallback && spa === 'owned')
      event.respondWith(fromShell(cacheName, fallback, request).then((r) => isolate(r, isolation)));
    else if (fallback && spa === 'offline')
      // The server's answer (the app's API, a file, its own 404); the shell only when there is none.
      event.respondWith(
        fetch(request)
          .catch((err: unknown) => cached(cacheName, fallback, err))
          .then((r) => isolate(r, isolation)),
      );
    // A request made `only-if-cached` outside same-origin mode cannot be fetched here.
    else if (
      (isolation !== false || shells?.mayHoldPrevious()) &&
      !(request.cache === 'only-if-cached' && request.mode !== 'same-origin')
    )
      event.respondWith(orPrevious(shells, url.href, request).then((r) => isolate(r, isolation)));
  });
}

/**
 * How a navigation outside the precache may get the SPA's page: at once (`owned`, an allowlisted
 * route), only when the network fails (`offline`), or `never` (denylisted).
 */
function shellFallback(url: URL, opts: ShellOptions): 'owned' | 'offline' | 'never' {
  const path = url.pathname + url.search;
  if (opts.navigateFallbackDenylist?.some((re) => re.test(path))) return 'never';
  if (opts.navigateFallbackAllowlist?.some((re) => re.test(path))) return 'owned';
  return DEFAULT_NAVIGATE_FALLBACK_DENYLIST.some((re) => re.test(path)) ? 'never' : 'offline';
}

/** Fetches every entry into a fresh cache; one failure fails the install, as the old worker then stays. */
async function precache(
  cacheName: string,
  manifest: readonly ShellEntry[],
  keyOf: (e: ShellEntry) => string,
  base: URL,
): Promise<void> {
  const cache = await caches.open(cacheName);
  await Promise.all(
    manifest.map(async (entry) => {
      const key = keyOf(entry);
      // A file the previous deploy's shell holds under the same key (hashed, or the same revision).
      const kept = await caches.match(key);
      if (kept) return cache.put(key, kept);
      // `reload`: the HTTP cache may hold an older copy of an unhashed file.
      const response = await fetch(new URL(entry.url, base).href, {
        cache: 'reload',
        credentials: 'same-origin',
      });
      if (!response.ok) throw new Error(`intab: precaching ${entry.url} got HTTP ${response.status}`);
      await cache.put(key, response);
    }),
  );
}

/** A file of the previous build an open page of it still imports (shell-generations.ts), else the network's. */
async function orPrevious(
  shells: ShellGenerations | null,
  href: string,
  request: Request,
): Promise<Response> {
  return (await shells?.previousCopy(href)) ?? fetch(request);
}

/** The precached copy; the network when it is missing (storage cleared under a live worker). */
async function fromShell(cacheName: string, key: string, request: Request): Promise<Response> {
  const hit = await (await caches.open(cacheName)).match(key);
  return hit ?? fetch(request);
}

/** The shell's copy of `key`, for a navigation the network failed (`err`, thrown again without one). */
async function cached(cacheName: string, key: string, err: unknown): Promise<Response> {
  const hit = await (await caches.open(cacheName)).match(key);
  if (hit) return hit;
  throw err;
}

/** A short revision of the whole manifest (FNV-1a over its URLs and revisions). */
function revisionOf(manifest: readonly ShellEntry[]): string {
  let h = 0x811c9dc5;
  for (const e of manifest)
    for (const ch of `${e.url}\n${e.revision ?? ''}\n`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h.toString(36);
}
