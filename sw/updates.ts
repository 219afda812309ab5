/**
 * How a new build's service worker takes over (issue 46). By default (`'prompt'`) it installs and
 * waits, as a service worker does, while pages of the previous build are open: they keep that
 * build's shell, so no page ever mixes two builds' files. A page then activates it with
 * `intab.applyUpdate()` (workbox-window's `messageSkipWaiting()`: the `{ type: 'SKIP_WAITING' }`
 * message handled here), or on its own with `startIntab({ autoUpdate: true })`; the last tab of the
 * old build closing activates it too. `'auto'` skips the wait at install, as vite-plugin-pwa's
 * `registerType: 'autoUpdate'` does. Either way the new worker claims every open page on activate:
 * pages the previous build served keep their files through the shell generations
 * (shell-generations.ts) until they reload.
 */

/** `'prompt'`: wait for a page's `applyUpdate()`; `'auto'`: take over as soon as installed. */
export type UpdateMode = 'prompt' | 'auto';

/** The message workbox-window's `messageSkipWaiting()` posts to the waiting worker. */
export const SKIP_WAITING = 'SKIP_WAITING';

/** The parts of a service worker's scope this uses. */
export interface UpdateScope {
  readonly clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(
    type: 'install' | 'activate',
    listener: (event: { waitUntil(p: Promise<unknown>): void }) => void,
  ): void;
  addEventListener(
    type: 'message',
    listener: (event: { data: unknown; waitUntil(p: Promise<unknown>): void }) => void,
  ): void;
}

/**
 * Adds the install, activate and message listeners of the update flow.
 *
 * @example
 * routeUpdates(self, 'prompt'); // a new build waits for intab.applyUpdate()
 */
export function routeUpdates(scope: UpdateScope, mode: UpdateMode): void {
  // A first install has no worker to wait for: it activates at once in either mode.
  if (mode === 'auto') scope.addEventListener('install', () => void scope.skipWaiting());
  scope.addEventListener('message', (event) => {
    const data = event.data;
    if (typeof data === 'object' && data !== null && (data as { type?: unknown }).type === SKIP_WAITING)
      event.waitUntil(scope.skipWaiting());
  });
  // The first load (and every open page, after an update) is controlled without another reload.
  scope.addEventListener('activate', (event) => event.waitUntil(scope.clients.claim()));
}
