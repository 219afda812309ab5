/// <reference lib="webworker" />
import { installIntab } from 'intab/sw';

declare const self: ServiceWorkerGlobalScope;

// intab first: the first fetch listener to call respondWith wins, and /v1/* is intab's. The app's
// own listeners (offline caching, push, …) go after it.
installIntab(self);
