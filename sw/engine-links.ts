/**
 * The service worker's ports to engine workers. State here is disposable: Chromium stops an idle
 * service worker after ~30 s and everything (ports included) is gone, so a link is re-requested from
 * a page whenever there is none or the one we have no longer answers `ping`.
 */
import * as Comlink from 'comlink';
import { serviceUnavailable } from '../src/core/api-error';
import { DeadlineError, withDeadline } from '../src/worker/deadline';
import { type EngineApi, PROTOCOL_VERSION, type SwToPageMessage } from '../src/worker/protocol';
import type { SwTiming } from './timing';

/** One port to one engine worker, handed over by the page `clientId`. */
export interface EngineLink {
  api: Comlink.Remote<EngineApi>;
  port: MessagePort;
  clientId: string | null;
}

/** The part of a `Client` used here. */
export interface ClientLike {
  readonly type: string;
  postMessage(message: unknown): void;
}

/** The subset of `self.clients` used here, typed structurally so Node tests (DOM lib) can fake it. */
export interface ClientsLike {
  get(id: string): Promise<ClientLike | undefined>;
  matchAll(options: { type: 'window' }): Promise<readonly ClientLike[]>;
}

/**
 * Keeps one link per page and finds a live one for a request.
 *
 * @example
 * const links = new EngineLinks(self.clients, SW_TIMING);
 * self.addEventListener('message', (e) => e.ports[0] && links.adopt(e.ports[0], clientIdOf(e)));
 * const link = await links.acquire(event.clientId); // or throws a 503 ApiError
 */
export class EngineLinks {
  readonly #byClient = new Map<string | null, EngineLink>();
  #newest: EngineLink | null = null;
  #waiters = new Set<(link: EngineLink) => void>();
  /** One outstanding `need-port` at a time: a burst of requests must not make a burst of channels. */
  #asking: Promise<EngineLink> | null = null;

  constructor(
    private readonly clients: ClientsLike,
    private readonly timing: SwTiming,
  ) {}

  /** Takes a port a page sent; it becomes that page's link and the default for pages without one. */
  adopt(port: MessagePort, clientId: string | null): EngineLink {
    const link: EngineLink = { api: Comlink.wrap<EngineApi>(port), port, clientId };
    const old = this.#byClient.get(clientId);
    if (old && old !== link) this.drop(old);
    this.#byClient.set(clientId, link);
    this.#newest = link;
    // Chromium ≥ 123 fires `close` when the engine worker's end dies (its tab closed); older
    // versions fire nothing, which is what the ping is for.
    port.addEventListener('close', () => this.drop(link));
    for (const resolve of this.#waiters) resolve(link);
    this.#waiters.clear();
    return link;
  }

  /** Forgets a link (dead or replaced) and closes its port so comlink's listeners can be collected. */
  drop(link: EngineLink): void {
    if (this.#byClient.get(link.clientId) === link) this.#byClient.delete(link.clientId);
    if (this.#newest === link) this.#newest = [...this.#byClient.values()].at(-1) ?? null;
    link.port.close();
  }

  /**
   * A link that answered `ping` just now: the requesting page's own, else the newest, else a fresh
   * one requested from the page. Rejects with a 503 `ApiError` when no page provides one in time.
   */
  async acquire(clientId: string): Promise<EngineLink> {
    for (const link of new Set([this.#byClient.get(clientId), this.#newest])) {
      if (link && (await this.alive(link, this.timing.pingMs))) return link;
    }
    this.#asking ??= this.#ask(clientId).finally(() => {
      this.#asking = null;
    });
    return this.#asking;
  }

  /** Pings `link`; a link that does not answer within `ms` is dropped. A stale protocol throws. */
  async alive(link: EngineLink, ms: number): Promise<boolean> {
    let protocol: number;
    try {
      ({ protocol } = await withDeadline(link.api.ping(), ms, 'The engine worker'));
    } catch {
      this.drop(link);
      return false;
    }
    if (protocol !== PROTOCOL_VERSION) {
      throw serviceUnavailable(
        `The engine worker speaks protocol ${protocol} but this service worker speaks ${PROTOCOL_VERSION}; reload the page to finish updating.`,
        'engine_version_mismatch',
      );
    }
    return true;
  }

  async #ask(clientId: string): Promise<EngineLink> {
    const client = await this.#pickClient(clientId);
    if (!client) {
      throw serviceUnavailable('No open page of this app can host the engine; open the app in a tab first.');
    }
    let waiter: (link: EngineLink) => void = () => {};
    const arrival = new Promise<EngineLink>((resolve) => {
      waiter = resolve;
      this.#waiters.add(resolve);
    });
    client.postMessage({ type: 'need-port' } satisfies SwToPageMessage);
    let link: EngineLink;
    try {
      link = await withDeadline(arrival, this.timing.portWaitMs, 'The page');
    } catch (err) {
      if (!(err instanceof DeadlineError)) throw err;
      throw serviceUnavailable(
        `No engine port arrived within ${this.timing.portWaitMs} ms; is the page that started intab still running?`,
      );
    } finally {
      this.#waiters.delete(waiter);
    }
    if (!(await this.alive(link, this.timing.pingMs))) {
      throw serviceUnavailable('The engine worker did not answer a ping on its new port.');
    }
    return link;
  }

  /** The requesting window, else any window of the origin (navigations and workers have no usable client). */
  async #pickClient(clientId: string): Promise<ClientLike | undefined> {
    const own = clientId ? await this.clients.get(clientId) : undefined;
    if (own && own.type === 'window') return own;
    const windows = await this.clients.matchAll({ type: 'window' });
    return windows[0];
  }
}
