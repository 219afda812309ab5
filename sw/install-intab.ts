/**
 * `intab/sw`: intab's part of a service worker, for an app's own service worker (workbox or not)
 * as much as for intab's. It routes same-origin `/v1/*` (and, if asked, the same routes without
 * `/v1`) to the engine worker over a MessagePort that a page hands over, and leaves every other
 * request to the app's own handlers.
 */
import { isRootAlias } from '../src/core/http/api-paths';
import { isMessage, type PageToSwMessage } from '../src/worker/protocol';
import { type ClientsLike, EngineLinks } from './engine-links';
import { forwardToEngine } from './forward';
import type { IsolationMode } from './isolation';
import { basePathOf, isLazyRequest, routeLazyAssets } from './lazy-cache';
import { isSandboxRequest, routePythonSandbox } from './python-sandbox';
import { SW_TIMING } from './timing';
import { routeUpdates, type UpdateMode } from './updates';

export interface InstallIntabOptions {
  /** The API's path prefix; `/v1/` as OpenAI's. */
  apiPrefix?: string;
  /**
   * Claim the pages (`clients.claim()` on activate, and on a Shift+reload's request), so the very
   * first load is controlled without a second reload, and run intab's update flow (`updates`).
   * Default true; turn it off when the app manages its own updates (it must then claim clients
   * itself before `intab.ready`).
   */
  claim?: boolean;
  /**
   * How a new build takes over pages of the previous one (sw/updates.ts): `'prompt'` (default)
   * waits until a page calls `intab.applyUpdate()` (or runs `startIntab({ autoUpdate: true })`), or
   * until the old build's last tab closes; `'auto'` takes over as soon as it is installed.
   */
  updates?: UpdateMode;
  /**
   * Also answer intab's routes without `/v1` (`/responses`, `/chat/completions`, `/embeddings`,
   * `/models`, `/conversations`, `/intab`), for OpenAI-compatible clients whose `baseURL` is the
   * bare origin. Off by default: those paths may be the app's own pages, and once intab answers
   * them they are API routes (a navigation to one gets intab's 403, as `/v1` does).
   */
  rootAliases?: boolean;
  /**
   * Keep intab's lazy assets (web-llm, wllama's JS and wasm, pdf.js, o200k, web-xgrammar, Pyodide),
   * which no precache holds, in Cache Storage the first time a feature fetches them, so they work
   * offline after. Default true; false for an app whose own runtime caching covers them.
   */
  cacheLazyAssets?: boolean;
  /**
   * The COEP (with `COOP: same-origin`) added to what intab's own routes serve (its lazy assets, the
   * Python sandbox's script) where the host sent none, so they load in a cross-origin isolated page.
   * Default `'require-corp'`; `false` leaves them as the host sent them. (intab's own service worker
   * also isolates the app's pages; see `routeOfflineShell`.)
   */
  crossOriginIsolation?: IsolationMode;
}

/** An event whose work keeps the service worker alive (`install`, `activate`, `message`). */
interface WaitableEvent {
  waitUntil(work: Promise<unknown>): void;
}

/**
 * The parts of a service worker's global scope intab uses, typed structurally (as `ClientsLike`
 * is) so Node tests can fake it; `self` in a service worker is one.
 */
export interface IntabScope {
  /** `href`: the worker script's URL, whose folder is where the build's lazy assets sit. */
  readonly location: { readonly origin: string; readonly href?: string };
  readonly clients: ClientsLike & { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: WaitableEvent) => void): void;
  addEventListener(
    type: 'message',
    listener: (
      event: WaitableEvent & { data: unknown; source: unknown; ports: readonly MessagePort[] },
    ) => void,
  ): void;
  addEventListener(
    type: 'fetch',
    listener: (event: {
      request: Request;
      clientId: string;
      respondWith(r: Promise<Response>): void;
    }) => void,
  ): void;
}

export interface IntabServiceWorker {
  /** Whether intab answers this request (it then calls `respondWith` itself). */
  handles(request: Request): boolean;
  /** The API prefix, e.g. to keep it out of a navigation fallback's routes. */
  readonly apiPrefix: string;
  /** Whether the routes without `/v1` are answered too. */
  readonly rootAliases: boolean;
  /** Whether any of intab's listeners answers this request: the API, the sandbox script, a lazy asset. */
  serves(request: Request): boolean;
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
 *
 * // For clients configured with the bare origin as baseURL (`/chat/completions`, `/embeddings`…):
 * installIntab(self, { rootAliases: true });
 */
export function installIntab(scope: IntabScope, opts: InstallIntabOptions = {}): IntabServiceWorker {
  const apiPrefix = opts.apiPrefix ?? '/v1/';
  const rootAliases = opts.rootAliases === true;
  const links = new EngineLinks(scope.clients, SW_TIMING);
  // Every route that matches goes through forwardToEngine, so the cross-site guard and the body cap
  // hold for the aliases as for `/v1`.
  const handles = (request: Request): boolean => {
    const url = new URL(request.url);
    if (url.origin !== scope.location.origin) return false;
    return url.pathname.startsWith(apiPrefix) || (rootAliases && isRootAlias(url.pathname));
  };

  if (opts.claim !== false) routeUpdates(scope, opts.updates ?? 'prompt');

  scope.addEventListener('message', (event) => {
    const port = event.ports[0];
    if (isMessage<Extract<PageToSwMessage, { type: 'port' }>>(event.data, 'port') && port) {
      links.adopt(port, clientIdOf(event.source), {
        leader: event.data.leader === true,
        restarted: event.data.restarted === true,
      });
    } else if (isMessage<PageToSwMessage>(event.data, 'leaving')) {
      links.leave(clientIdOf(event.source));
    } else if (isMessage<PageToSwMessage>(event.data, 'claim')) {
      // A Shift+reload bypasses the service worker, and `activate` never runs again to claim the page.
      event.waitUntil(scope.clients.claim());
    }
  });

  scope.addEventListener('fetch', (event) => {
    if (!handles(event.request)) return;
    event.respondWith(forwardToEngine(event.request, event.clientId, links, SW_TIMING));
  });

  // The Python sandbox's script, with its CSP (code_interpreter).
  const isolation = opts.crossOriginIsolation ?? 'require-corp';
  routePythonSandbox(scope, isolation);
  const lazy = opts.cacheLazyAssets !== false;
  if (lazy) routeLazyAssets(scope, isolation);

  const origin = scope.location.origin;
  const base = basePathOf(scope.location);
  const serves = (request: Request): boolean =>
    handles(request) || isSandboxRequest(request, origin) || (lazy && isLazyRequest(request, origin, base));
  return { handles, apiPrefix, rootAliases, serves };
}

/** The id of the page that sent a message (a `Client`), or null for another sender. */
function clientIdOf(source: unknown): string | null {
  const id = typeof source === 'object' && source !== null ? (source as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : null;
}
