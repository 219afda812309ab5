/**
 * The service worker `intab/vite` builds when the app has none of its own: intab's handler and
 * nothing else (no precache; an app that wants offline adds its own service worker and imports
 * `intab/sw` into it).
 */
import { installIntab } from './install-intab';

declare const self: ServiceWorkerGlobalScope;

installIntab(self);
