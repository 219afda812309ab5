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
 *
 * Busy is not dead (issue 27): a worker in the middle of a long step answers a ping late. A late
 * ping drops the link only when the tab that handed it over is gone (`clients.get` no longer finds
 * it); while that tab is open, the ping gets until `busyMs`, because the tab itself restarts a
 * worker that stays silent past its own, shorter bound (`stuckWorkerMs`) and hands over a port
 * marked `restarted`, which ends the old worker's links here. A second port from the same tab
 * (its `controllerchange` handover crossing the answer to a `need-port`) leads to the same worker:
 * it takes over new requests, and the first one is retired, not dropped, so a call in flight on it
 * still gets its answer.
 */
import * as Comlink from 'comlink';
import { serviceUnavailable } from '../src/common/api-error';
import { DeadlineError, withDeadline } from '../src/worker/deadline';
import { type EngineApi, PROTOCOL_VERSION, type SwToPageMessage } from '../src/worker/protocol';
import { BUSY_MS, type SwTiming, TRUST_MS } from './timing';

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
  /** Calls and pings in flight on each link: a retired link's port closes when its last one ends. */
  readonly #uses = new WeakMap<EngineLink, number>();
  /** Links replaced by a newer port from the same tab (same worker), kept open for what is in flight. */
  readonly #retired = new Set<EngineLink>();

  constructor(
    private readonly clients: ClientsLike,
    private readonly timing: SwTiming,
  ) {}

  /**
   * Takes a port a page sent; it becomes that page's link and the default for every other page. A
   * port from an elected leader (`leader`) supersedes every other page's link: Web Locks let only
   * one tab lead, so a new leader means the previous one's tab is gone (closed or reloaded). A port
   * marked `restarted` comes from a tab that replaced a stuck engine worker: its earlier links led to
   * the terminated worker, so they end now, bodies included.
   */
  adopt(
    port: MessagePort,
    clientId: string | null,
    opts: { leader?: boolean; restarted?: boolean } = {},
  ): EngineLink {
    const ends = { closed: new AbortController(), gone: new AbortController() };
    const link: EngineLink = {
      api: Comlink.wrap<EngineApi>(port),
      port,
      clientId,
      closed: ends.closed.signal,
      gone: ends.gone.signal,
    };
    this.#ends.set(link, ends);
    for (const old of [...this.#byClient.values(), ...this.#retired]) {
      if (old.clientId === clientId) {
        if (opts.restarted) {
          this.drop(
            old,
            'The engine worker stopped answering and its tab restarted it; retry the request.',
            true,
          );
        } else this.#retire(old);
      } else if (opts.leader) {
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
    const links = [this.#byClient.get(clientId), ...this.#retired].filter((l) => l?.clientId === clientId);
    for (const link of links) {
      if (link) this.drop(link, 'The tab that ran the engine closed; retry the request.', true);
    }
  }

  /**
   * Marks `link` busy until the returned function is called (once). A retired link's port closes
   * when its last call or ping ends.
   *
   * @example
   * const release = links.hold(link);
   * try { await link.api.handle(data); } finally { release(); }
   */
  hold(link: EngineLink): () => void {
    this.#uses.set(link, (this.#uses.get(link) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#uses.set(link, (this.#uses.get(link) ?? 1) - 1);
      this.#closeIfIdle(link);
    };
  }

  /** New requests stop using `link` (a newer port of the same tab took over); what is in flight goes on. */
  #retire(link: EngineLink): void {
    if (this.#byClient.get(link.clientId) === link) this.#byClient.delete(link.clientId);
    if (this.#newest === link) this.#newest = [...this.#byClient.values()].at(-1) ?? null;
    this.#retired.add(link);
    this.#closeIfIdle(link);
  }

  /**
   * Closes a retired link nothing uses, a task later: a ping that just answered hands its link to a
   * call that holds it only a few microtasks after the ping let go.
   */
  #closeIfIdle(link: EngineLink): void {
    if (!this.#retired.has(link)) return;
    setTimeout(() => {
      if (this.#retired.has(link) && !this.#uses.get(link)) this.drop(link, 'The engine port was replaced.');
    }, 0);
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
    this.#retired.delete(link);
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
   * Pings `link`. One that does not answer within `ms` is dropped when the tab that handed it over
   * is gone; while that tab is open its worker is busy, not dead, and the same ping gets until
   * `busyMs` (counted from when it was sent) before the link is dropped. A link dropped meanwhile
   * (e.g. replaced by a new leader's or a restarted worker's) answers false at once. A stale protocol
   * throws.
   */
  async alive(link: EngineLink, ms: number): Promise<boolean> {
    if (link.closed.aborted) return false;
    let protocol: number;
    let listener = (): void => {};
    const closed = new Promise<never>((_, reject) => {
      listener = () => reject(link.closed.reason);
    });
    link.closed.addEventListener('abort', listener);
    const release = this.hold(link);
    const sent = performance.now();
    try {
      const pong = Promise.race([link.api.ping(), closed]);
      try {
        ({ protocol } = await withDeadline(pong, ms, 'The engine worker'));
      } catch (err) {
        const rest = (this.timing.busyMs ?? BUSY_MS) - (performance.now() - sent);
        if (!(err instanceof DeadlineError) || rest <= 0 || !(await this.#tabOpen(link))) throw err;
        ({ protocol } = await withDeadline(pong, rest, 'The engine worker'));
      }
    } catch {
      this.drop(link);
      return false;
    } finally {
      link.closed.removeEventListener('abort', listener);
      release();
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

  /** Whether the page that handed `link` over is still open (then it answers for its worker). */
  async #tabOpen(link: EngineLink): Promise<boolean> {
    if (!link.clientId || link.closed.aborted) return false;
    try {
      return (await this.clients.get(link.clientId)) !== undefined;
    } catch {
      return false;
    }
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
