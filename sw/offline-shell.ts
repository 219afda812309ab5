/**
 * The offline shell of intab's own service worker (the one `intab/vite` builds when the app has
 * none): the build's precache manifest (the app's shell and intab's runtime, never the lazy assets
 * of `src/common/lazy-assets.ts`) fetched at install into one cache per manifest, served cache
 * first, with navigations answered by the precached page (the SPA's `index.html` for any other
 * path). Workbox's model, in a few lines, so an app that installs intab needs no workbox package.
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
}

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
    const url = new URL(request.url);
    if (url.origin !== scope.location.origin) return;
    url.hash = '';
    url.search = '';
    const key =
      byUrl.get(url.href) ??
      (request.mode === 'navigate' ? (byUrl.get(new URL('index.html', url).href) ?? fallback) : null);
    if (key) event.respondWith(fromShell(cacheName, key, request).then((r) => isolate(r, isolation)));
    // A request made `only-if-cached` outside same-origin mode cannot be fetched here.
    else if (
      (isolation !== false || shells?.mayHoldPrevious()) &&
      !(request.cache === 'only-if-cached' && request.mode !== 'same-origin')
    )
      event.respondWith(orPrevious(shells, url.href, request).then((r) => isolate(r, isolation)));
  });
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

/** A short revision of the whole manifest (FNV-1a over its URLs and revisions). */
function revisionOf(manifest: readonly ShellEntry[]): string {
  let h = 0x811c9dc5;
  for (const e of manifest)
    for (const ch of `${e.url}\n${e.revision ?? ''}\n`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h.toString(36);
}
