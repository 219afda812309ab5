/**
 * Readiness: the page is controlled by the service worker and `GET /v1/models` answers 200 through it.
 */
import type { PageToSwMessage } from '../worker/protocol';

/**
 * Resolves once a service worker controls this page. After a Shift+reload the active worker does not
 * claim the page by itself (`activate` already ran), so it is asked to.
 *
 * @example
 * await waitForControl(navigator.serviceWorker, registration, deadline);
 */
export async function waitForControl(
  container: ServiceWorkerContainer,
  registration: ServiceWorkerRegistration,
  deadline: number,
): Promise<void> {
  if (container.controller) return;
  const controlled = new Promise<void>((resolve) => {
    container.addEventListener('controllerchange', () => resolve(), { once: true });
  });
  if (container.controller) return;
  registration.active?.postMessage({ type: 'claim' } satisfies PageToSwMessage);
  // A worker whose install fails (e.g. a precache download error) turns redundant; say so at once
  // rather than at the deadline.
  const failed = new Promise<never>((_, reject) => {
    const sw = registration.installing ?? registration.waiting;
    sw?.addEventListener('statechange', () => {
      if (sw.state === 'redundant' && !container.controller) {
        reject(new Error('The service worker failed to install (see its console for the precache error).'));
      }
    });
  });
  await raceDeadline(Promise.race([controlled, failed]), deadline, () => {
    const state = registration.installing ? 'installing' : registration.waiting ? 'waiting' : 'active';
    return `no service worker took control of the page (registration is ${state})`;
  });
}

/**
 * Polls `GET {base}v1/models` until it answers 200. Early 503s are normal while the service worker
 * and the engine worker find each other.
 *
 * @example
 * await waitForModels(new URL('/', location.href), Date.now() + 30_000);
 */
export async function waitForModels(base: URL, deadline: number): Promise<void> {
  const url = new URL('v1/models', base);
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { cache: 'no-store' });
      if (res.status === 200) return;
      last = `HTTP ${res.status}: ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`GET ${url.pathname} did not answer 200 through the service worker (last: ${last})`);
}

async function raceDeadline(promise: Promise<void>, deadline: number, describe: () => string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(describe())), Math.max(0, deadline - Date.now()));
  });
  try {
    await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
