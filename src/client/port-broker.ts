/**
 * Connects the service worker to the engine worker. The service worker forgets its port whenever
 * Chromium stops it (~30 s idle), so it asks again with `need-port`; the page also hands one over
 * as soon as a service worker controls it, so the first request needs no round trip.
 */
import { isMessage, type PageToSwMessage, PROTOCOL_VERSION, type SwToPageMessage } from '../worker/protocol';

/**
 * Starts answering `need-port` and handing ports on `controllerchange`. Returns a stop function.
 *
 * @example
 * const stop = brokerPorts(navigator.serviceWorker, () => engine.connect());
 */
export function brokerPorts(container: ServiceWorkerContainer, connect: () => MessagePort): () => void {
  const handTo = (sw: ServiceWorker | null): void => {
    if (!sw) return;
    const port = connect();
    sw.postMessage({ type: 'port', protocol: PROTOCOL_VERSION } satisfies PageToSwMessage, [port]);
  };
  const onMessage = (event: MessageEvent): void => {
    if (!isMessage<SwToPageMessage>(event.data, 'need-port')) return;
    // Answer the worker that asked (it may not be our controller yet, e.g. while it activates).
    handTo(event.source instanceof ServiceWorker ? event.source : container.controller);
  };
  const onControllerChange = (): void => handTo(container.controller);

  container.addEventListener('message', onMessage);
  container.addEventListener('controllerchange', onControllerChange);
  // Messages from the service worker are queued until the page opts in (or DOMContentLoaded); a
  // `need-port` sent during startup must not wait for that.
  container.startMessages();
  handTo(container.controller);
  return () => {
    container.removeEventListener('message', onMessage);
    container.removeEventListener('controllerchange', onControllerChange);
  };
}
