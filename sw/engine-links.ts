/**
 * The service worker's ports to engine workers. State here is disposable: Chromium stops an idle
 * service worker after ~30 s and everything (ports included) is gone, so a link is re-requested from
 * a page whenever there is none or the one we have no longer answers `ping`.
 *
 * Only the leading tab runs an engine worker (DESIGN §5), so in practice every link comes from the
 * leader, and the newest one is the one every tab's requests use. A follower asked for a port relays
 * the ask to the leader, whose port arrives here from the leader's page; the waiters below take any
 * port that arrives, whoever sent it. When the leader's tab closes, its link fails `ping` (or its
 * port fires `close`) and the next request asks again, by which time a new leader has usually
 * handed over a port of its own already.
 */
import * as Comlink from 'comlink';
import { serviceUnavailable } from '../src/common/api-error';
import { DeadlineError, withDeadline } from '../src/worker/deadline';
import { type EngineApi, PROTOCOL_VERSION, type SwToPageMessage } from '../src/worker/protocol';
import { type SwTiming, TRUST_MS } from './timing';

/** One port to one engine worker, handed over by the page `clientId` (the leader when it was sent). */
export interface EngineLink {
  api: Comlink.Remote<EngineApi>;
  port: MessagePort;
  clientId: string | null;
  /**
   * Aborted, with a 503 `ApiError` as the reason, when the link is dropped (it missed a ping, was
   * replaced, or its tab is gone): our end of the port is closed then, so calls in flight on it can
   * never be answered and end at once instead of at the next heartbeat.
   */
  closed: AbortSignal;
  /**
   * Aborted when the worker's tab is known to be gone: its port fired `close`, or a new leader took
   * over. Bodies still streaming from it end then. A missed ping alone does not abort this: a worker
   * busy compiling a model can be late and still be streaming.
   */
  gone: AbortSignal;
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
 * const { link } = await links.acquire(event.clientId); // or throws a 503 ApiError
 */
export class EngineLinks {
  readonly #byClient = new Map<string | null, EngineLink>();
  readonly #ends = new WeakMap<EngineLink, { closed: AbortController; gone: AbortController }>();
  /** When each link last answered anything (a ping, a call): see {@link SwTiming.trustMs}. */
  readonly #heard = new WeakMap<EngineLink, number>();
  #newest: EngineLink | null = null;
  #waiters = new Set<(link: EngineLink) => void>();
  /** One outstanding `need-port` at a time: a burst of requests must not make a burst of channels. */
  #asking: Promise<EngineLink> | null = null;

  constructor(
    private readonly clients: ClientsLike,
    private readonly timing: SwTiming,
  ) {}

  /**
   * Takes a port a page sent; it becomes that page's link and the default for every other page. A
   * port from an elected leader (`leader`) supersedes every other page's link: Web Locks let only
   * one tab lead, so a new leader means the previous one's tab is gone (closed or reloaded).
   */
  adopt(port: MessagePort, clientId: string | null, opts: { leader?: boolean } = {}): EngineLink {
    const ends = { closed: new AbortController(), gone: new AbortController() };
    const link: EngineLink = {
      api: Comlink.wrap<EngineApi>(port),
      port,
      clientId,
      closed: ends.closed.signal,
      gone: ends.gone.signal,
    };
    this.#ends.set(link, ends);
    for (const old of [...this.#byClient.values()]) {
      if (old.clientId === clientId) this.drop(old, 'The engine port was replaced; retry the request.');
      else if (opts.leader) {
        this.drop(
          old,
          'The tab that ran the engine closed; another tab runs it now. Retry the request.',
          true,
        );
      }
    }
    this.#byClient.set(clientId, link);
    this.#newest = link;
    // Chromium ≥ 123 fires `close` when the engine worker's end dies (its tab closed); older
    // versions fire nothing, which is what the ping is for.
    port.addEventListener('close', () => this.drop(link, undefined, true));
    for (const resolve of this.#waiters) resolve(link);
    this.#waiters.clear();
    return link;
  }

  /**
   * The page `clientId` is going away (`pagehide`): its link ends now, calls and bodies in flight on
   * it with a 503, rather than when its port closes or a new leader hands over a port.
   */
  leave(clientId: string | null): void {
    const link = this.#byClient.get(clientId);
    if (link) this.drop(link, 'The tab that ran the engine closed; retry the request.', true);
  }

  /**
   * Forgets a link (dead or replaced), closes its port so comlink's listeners can be collected, and
   * ends with a 503 saying `why` the calls in flight on it, and its bodies too when its tab is `gone`.
   */
  drop(
    link: EngineLink,
    why = 'The engine worker stopped answering (was its tab closed?).',
    gone = false,
  ): void {
    if (this.#byClient.get(link.clientId) === link) this.#byClient.delete(link.clientId);
    if (this.#newest === link) this.#newest = [...this.#byClient.values()].at(-1) ?? null;
    const ends = this.#ends.get(link);
    const reason = serviceUnavailable(why);
    ends?.closed.abort(reason);
    if (gone) ends?.gone.abort(reason);
    link.port.close();
  }

  /**
   * A live link: the requesting page's own, else the newest, else a fresh one requested from the
   * page. A link that answered within `trustMs` is taken as it is (`trusted`: the caller checks it
   * beside its call); any other answers a `ping` first. Rejects with a 503 `ApiError` when no page
   * provides one in time. The newest is re-read after each miss: a new leader's port may arrive
   * while a ping to the dead leader is pending.
   */
  async acquire(clientId: string): Promise<{ link: EngineLink; trusted: boolean }> {
    const tried = new Set<EngineLink>();
    for (
      let link = this.#byClient.get(clientId) ?? this.#newest;
      link && !tried.has(link);
      link = this.#newest
    ) {
      tried.add(link);
      if (this.#recent(link)) return { link, trusted: true };
      if (await this.alive(link, this.timing.pingMs)) return { link, trusted: false };
    }
    this.#asking ??= this.#ask(clientId).finally(() => {
      this.#asking = null;
    });
    return { link: await this.#asking, trusted: false };
  }

  /** `link` answered something just now (a call returned): it counts as alive for `trustMs`. */
  heard(link: EngineLink): void {
    if (!link.closed.aborted) this.#heard.set(link, performance.now());
  }

  #recent(link: EngineLink): boolean {
    const at = this.#heard.get(link);
    return (
      !link.closed.aborted && at !== undefined && performance.now() - at < (this.timing.trustMs ?? TRUST_MS)
    );
  }

  /**
   * Pings `link`; a link that does not answer within `ms` is dropped. A link dropped meanwhile (e.g.
   * replaced by a new leader's) answers false at once. A stale protocol throws.
   */
  async alive(link: EngineLink, ms: number): Promise<boolean> {
    let protocol: number;
    let listener = (): void => {};
    const closed = new Promise<never>((_, reject) => {
      listener = () => reject(link.closed.reason);
    });
    link.closed.addEventListener('abort', listener);
    try {
      if (link.closed.aborted) return false;
      ({ protocol } = await withDeadline(Promise.race([link.api.ping(), closed]), ms, 'The engine worker'));
    } catch {
      this.drop(link);
      return false;
    } finally {
      link.closed.removeEventListener('abort', listener);
    }
    if (protocol !== PROTOCOL_VERSION) {
      this.#heard.delete(link);
      throw serviceUnavailable(
        `The engine worker speaks protocol ${protocol} but this service worker speaks ${PROTOCOL_VERSION}; reload the page to finish updating.`,
        'engine_version_mismatch',
      );
    }
    this.heard(link);
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
        `No tab running the engine handed over a port within ${this.timing.portWaitMs} ms; is a page of this app that called startIntab() still open?`,
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
