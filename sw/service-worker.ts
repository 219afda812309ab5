/**
 * The demo's service worker: intab's handler (`intab/sw`, the same code apps import into theirs)
 * plus the precached app shell, so the installed demo reloads offline.
 */
import type { PrecacheEntry } from 'workbox-precaching';
import { routeAppShell } from './app-shell';
import { installIntab } from './install-intab';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

// intab's fetch listener first: the first listener to call respondWith wins.
const intab = installIntab(self);
routeAppShell(self.__WB_MANIFEST, intab.apiPrefix);
