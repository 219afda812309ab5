/**
 * The service worker: thin and stateless (DESIGN §2). It routes same-origin `/v1/*` to an engine
 * worker over a comlink MessagePort that a page hands over, and serves the precached app shell for
 * everything else so the installed app reloads offline.
 */
import type { PrecacheEntry } from 'workbox-precaching';
import { isMessage, type PageToSwMessage } from '../src/worker/protocol';
import { routeAppShell } from './app-shell';
import { EngineLinks } from './engine-links';
import { forwardToEngine } from './forward';
import { SW_TIMING } from './timing';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

const API_PREFIX = '/v1/';
const links = new EngineLinks(self.clients, SW_TIMING);

// Take over at once, so the very first load (and a Shift+reload) is controlled without a second reload.
self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('message', (event) => {
  const source = event.source && 'id' in event.source ? event.source : null;
  const port = event.ports[0];
  if (isMessage<Extract<PageToSwMessage, { type: 'port' }>>(event.data, 'port') && port) {
    links.adopt(port, source?.id ?? null, { leader: event.data.leader === true });
  } else if (isMessage<PageToSwMessage>(event.data, 'claim')) {
    // A Shift+reload bypasses the service worker, and `activate` never runs again to claim the page.
    event.waitUntil(self.clients.claim());
  }
});

// Added before the app-shell routes: the first listener to call respondWith wins.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(API_PREFIX)) return;
  event.respondWith(forwardToEngine(event.request, event.clientId, links, SW_TIMING));
});

routeAppShell(self.__WB_MANIFEST, API_PREFIX);
