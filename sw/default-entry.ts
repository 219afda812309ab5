/**
 * The service worker `intab/vite` builds when the app has none of its own: intab's handler (the
 * `/v1` routes and the runtime cache of its lazy assets) and the offline shell, which the plugin's
 * `precache` (on by default) fills with the build's manifest.
 */
import { installIntab } from './install-intab';
import { routeOfflineShell, type ShellEntry } from './offline-shell';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: ShellEntry[] };

// intab's fetch listeners first: the first listener to call respondWith wins.
const intab = installIntab(self);
routeOfflineShell(self, self.__WB_MANIFEST, intab.apiPrefix);
