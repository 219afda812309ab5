/**
 * The page's side of a new build reaching a returning visitor (issue 46; the worker's side is
 * sw/updates.ts). After a deploy, the browser installs the new service worker on the next
 * navigation (or on {@link IntabUpdates.checkForUpdate}) and it waits while this build's pages are
 * open, so none of them mixes two builds. workbox-window's `waiting` event (and a registration
 * that was already installing when this page registered, which that event misses) is announced to
 * {@link IntabUpdates.onUpdate}; {@link IntabUpdates.applyUpdate} sends `messageSkipWaiting()`,
 * waits (bounded) for the new worker to control the page, and reloads it into the new build.
 */
import type { Workbox } from 'workbox-window';
import { withDeadline } from '../worker/deadline';

/** What {@link IntabUpdates.onUpdate} hears. */
export interface IntabUpdate {
  /**
   * true: a new build is installed and waits for `applyUpdate()`. false: another tab activated it
   * and it controls this page now, which still runs the previous build until it reloads.
   */
  waiting: boolean;
}

/** The update surface of the object `startIntab` returns. */
export interface IntabUpdates {
  /**
   * Calls `listener` when a new build of the app is waiting (at once if one already is), and when
   * another tab activated one. Returns a function that removes the listener.
   *
   * @example
   * intab.onUpdate(() => { banner.hidden = false; });
   * button.onclick = () => intab.applyUpdate();
   */
  onUpdate(listener: (update: IntabUpdate) => void): () => void;
  /**
   * Activates the waiting build (workbox-window's `messageSkipWaiting()`) and reloads this page
   * into it once the new worker controls it; with none waiting, just reloads. Rejects when the new
   * worker does not take over within 10 s (the page stays as it was).
   */
  applyUpdate(): Promise<void>;
  /** Asks the browser to look for a new build now (a long-lived tab otherwise waits for a navigation). */
  checkForUpdate(): Promise<void>;
}

/** What the watcher is attached to once the service worker is registered. */
export interface UpdateTarget {
  wb: Pick<Workbox, 'addEventListener' | 'messageSkipWaiting' | 'update'>;
  registration: ServiceWorkerRegistration;
  container: ServiceWorkerContainer;
}

/** How long `applyUpdate()` waits for the new worker to control the page. */
export const APPLY_UPDATE_MS = 10_000;

/**
 * The update surface, usable at once; `attach` wires it to the registration when there is one.
 *
 * @example
 * const updates = watchUpdates({ autoUpdate: true });
 * updates.attach({ wb, registration, container: navigator.serviceWorker });
 */
export function watchUpdates(opts: { autoUpdate?: boolean; reload?: () => void; applyMs?: number } = {}): {
  api: IntabUpdates;
  attach(target: UpdateTarget): void;
  fail(err: unknown): void;
} {
  const listeners = new Set<(update: IntabUpdate) => void>();
  const reload = opts.reload ?? (() => location.reload());
  let target: UpdateTarget | null = null;
  let attached: () => void = () => {};
  let fail: (err: unknown) => void = () => {};
  // Settles with the registration: `fail` when it could not be made (the calls then reject with why).
  const ready = new Promise<void>((resolve, reject) => {
    attached = resolve;
    fail = reject;
  });
  ready.catch(() => {});
  let latest: IntabUpdate | null = null;
  let announced: ServiceWorker | null = null;
  let applying: Promise<void> | null = null;

  const announce = (update: IntabUpdate): void => {
    latest = update;
    for (const listener of listeners) notify(listener, update);
    if (opts.autoUpdate) apply().catch((err: unknown) => console.error('[intab] update failed:', err));
  };

  const apply = (): Promise<void> => {
    applying ??= (async () => {
      await ready;
      const { wb, registration, container } = target as UpdateTarget;
      if (registration.waiting) {
        const taken = new Promise<void>((resolve) =>
          container.addEventListener('controllerchange', () => resolve(), { once: true }),
        );
        wb.messageSkipWaiting();
        await withDeadline(taken, opts.applyMs ?? APPLY_UPDATE_MS, "The new build's service worker");
      }
      reload();
    })().finally(() => {
      applying = null;
    });
    return applying;
  };

  const api: IntabUpdates = {
    onUpdate(listener) {
      listeners.add(listener);
      if (latest) notify(listener, latest);
      return () => listeners.delete(listener);
    },
    applyUpdate: apply,
    async checkForUpdate() {
      await ready;
      await (target as UpdateTarget).wb.update();
    },
  };

  const attach = (t: UpdateTarget): void => {
    target = t;
    const { wb, registration, container } = t;
    const checkWaiting = (): void => {
      const waiting = registration.waiting;
      // Only an update waits: a first install activates at once.
      if (!waiting || waiting === announced || !registration.active) return;
      announced = waiting;
      announce({ waiting: true });
    };
    const track = (sw: ServiceWorker | null): void =>
      sw?.addEventListener('statechange', () => sw.state === 'installed' && checkWaiting());
    wb.addEventListener('waiting', checkWaiting);
    // Installing already (the navigation's own update check ran before this page registered).
    track(registration.installing);
    registration.addEventListener('updatefound', () => track(registration.installing));
    let controller = container.controller;
    container.addEventListener('controllerchange', () => {
      const previous = controller;
      controller = container.controller;
      // A first install's claim (or a Shift+reload's) had no controller before: not an update.
      if (previous && !applying) announce({ waiting: false });
    });
    checkWaiting();
    attached();
  };
  return { api, attach, fail };
}

/** A listener's error is the app's; it must not stop the others. */
function notify(listener: (update: IntabUpdate) => void, update: IntabUpdate): void {
  try {
    listener(update);
  } catch (err) {
    console.error('[intab] an onUpdate listener threw:', err);
  }
}
