/**
 * The service worker `intab/vite` builds when the app has none of its own: intab's handler (the
 * `/v1` routes and the runtime cache of its lazy assets), the offline shell, which the plugin's
 * `precache` (on by default) fills with the build's manifest, and cross-origin isolation on any
 * host (the plugin's `crossOriginIsolation`, defined into `__INTAB_ISOLATION__`); navigations the
 * shell answers as the plugin's `navigateFallbackDenylist`/`Allowlist` say (`__INTAB_NAVIGATION__`).
 */
import { installIntab } from './install-intab';
import type { IsolationMode } from './isolation';
import { routeOfflineShell, type ShellEntry } from './offline-shell';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: ShellEntry[] };
declare const __INTAB_ISOLATION__: IsolationMode | undefined;
/** The plugin's `navigateFallbackDenylist` and `navigateFallbackAllowlist`, as [source, flags] pairs. */
declare const __INTAB_NAVIGATION__: { deny: [string, string][]; allow: [string, string][] } | undefined;

const isolation: IsolationMode =
  typeof __INTAB_ISOLATION__ === 'undefined' ? 'require-corp' : __INTAB_ISOLATION__;

// intab's fetch listeners first: the first listener to call respondWith wins.
const intab = installIntab(self, { crossOriginIsolation: isolation });
const navigation =
  typeof __INTAB_NAVIGATION__ === 'undefined' ? { deny: [], allow: [] } : __INTAB_NAVIGATION__;
routeOfflineShell(self, self.__WB_MANIFEST, {
  skip: intab.serves,
  isolation,
  navigateFallbackDenylist: navigation.deny.map(([source, flags]) => new RegExp(source, flags)),
  navigateFallbackAllowlist: navigation.allow.map(([source, flags]) => new RegExp(source, flags)),
});
