/// <reference lib="webworker" />
import { installIntab } from 'intab/sw';
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<{ url: string; revision: string | null }>;
};

// intab first: the first fetch listener to call respondWith wins, and /v1/* is intab's.
installIntab(self);

// The app's own offline support.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
