/**
 * Connects the service worker to the leader's engine worker. The service worker forgets its port
 * whenever Chromium stops it (~30 s idle), or when the leading tab closes, so it asks again with
 * `need-port`, addressed to the tab whose request needs it. That tab answers with a port when it
 * leads, and otherwise relays the ask to the leader (who then posts a port to the service worker
 * itself). The leader also hands one over as soon as it is elected and whenever a service worker
 * takes control, so the first request after a failover needs no round trip.
 */
import { isMessage, type PageToSwMessage, PROTOCOL_VERSION, type SwToPageMessage } from '../worker/protocol';

/** What this tab does with a port request. */
export interface PortSource {
  /** A new port into the engine worker, or null when this tab does not run it (a follower). */
  connect(): MessagePort | null;
  /** Passes a `need-port` on to the leading tab (a follower's answer). */
  relay(): void;
  /** Whether this tab holds the leader lock, so its ports replace every other tab's in the service worker. */
  exclusive?(): boolean;
}

/** A running broker. */
export interface PortBroker {
  /**
   * Posts a fresh port to the active service worker, if this tab runs the engine. `restarted`: the
   * engine worker was just replaced (it was stuck), so the service worker ends this tab's older links.
   */
  handOver(opts?: { restarted?: boolean }): void;
  stop(): void;
}

/**
 * Starts answering `need-port` and handing ports on `controllerchange`, and hands one over now if
 * this tab already runs the engine.
 *
 * @example
 * const broker = brokerPorts(navigator.serviceWorker, { connect: () => engine?.connect() ?? null, relay });
 * broker.handOver(); // e.g. right after this tab was elected leader
 */
export function brokerPorts(
  container: ServiceWorkerContainer,
  sourceOrConnect: PortSource | (() => MessagePort),
): PortBroker {
  // A bare `connect` is a page that always runs its own engine (the bench page does).
  const source: PortSource =
    typeof sourceOrConnect === 'function' ? { connect: sourceOrConnect, relay: () => {} } : sourceOrConnect;
  /** The service workers this tab handed ports to: they hear when it leaves. */
  const handed = new Set<ServiceWorker>();
  const handTo = (sw: ServiceWorker | null | undefined, restarted = false): boolean => {
    if (!sw) return false;
    const port = source.connect();
    if (!port) return false;
    const leader = source.exclusive?.() ?? false;
    const message: PageToSwMessage = { type: 'port', protocol: PROTOCOL_VERSION, leader };
    if (restarted) message.restarted = true;
    sw.postMessage(message, [port]);
    handed.add(sw);
    return true;
  };
  // The engine worker dies with this tab. Said now, the service worker ends what is in flight on its
  // ports with a retryable 503 at once, instead of when a port's `close` or a new leader's port comes.
  const onPageHide = (): void => {
    for (const sw of handed) sw.postMessage({ type: 'leaving' } satisfies PageToSwMessage);
  };
  const handOver = (opts: { restarted?: boolean } = {}): void => {
    if (handTo(container.controller, opts.restarted)) return;
    // Not controlled (yet): the active worker of our registration serves the other tabs; if there is
    // none, `controllerchange` calls this again.
    void container.getRegistration().then(
      (registration) => handTo(registration?.active, opts.restarted),
      () => {},
    );
  };
  const onMessage = (event: MessageEvent): void => {
    if (!isMessage<SwToPageMessage>(event.data, 'need-port')) return;
    // Answer the worker that asked (it may not be our controller yet, e.g. while it activates).
    const asker = event.source instanceof ServiceWorker ? event.source : container.controller;
    if (!handTo(asker)) source.relay();
  };
  const onControllerChange = (): void => handOver();

  container.addEventListener('message', onMessage);
  container.addEventListener('controllerchange', onControllerChange);
  globalThis.addEventListener?.('pagehide', onPageHide);
  // Messages from the service worker are queued until the page opts in (or DOMContentLoaded); a
  // `need-port` sent during startup must not wait for that.
  container.startMessages();
  handOver();
  return {
    handOver,
    stop() {
      container.removeEventListener('message', onMessage);
      container.removeEventListener('controllerchange', onControllerChange);
      globalThis.removeEventListener?.('pagehide', onPageHide);
    },
  };
}
