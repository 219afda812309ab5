/**
 * Which builds' shells the offline shell keeps (issue 43): the current build's, and the previous
 * build's while a page it served may still be open. Such a page's engine worker imports its lazy
 * chunks (the Conversations API, the Files API, …) by its own build's hashed names, on the first
 * request that needs one, which may come long after the new build took over (`skipWaiting`,
 * `clients.claim`). The new build's shell and host no longer have those names: with the previous
 * shell deleted on activate, each such request was a 503 `module_unavailable`.
 *
 * Bounded: at most one previous shell, the one activated last before the current. A page two
 * builds old (open across two deploys) keeps what it has loaded, but a chunk it never loaded is
 * gone with its shell; a reload gets the current build.
 *
 * Which pages are the previous build's: every window open when the current worker activates (none
 * can have been served by it yet), kept as marks in the previous shell, since a service worker's
 * memory goes whenever it is stopped. The previous shell goes when no marked page is open any more,
 * seen on a later navigation (a tab opened or reloaded) or the next activate. A page whose navigation
 * was still in flight while the worker activated is not among the marks: it keeps what it loaded.
 */

/** The part of `self.clients` used here: the ids of the open windows. */
export interface WindowClients {
  matchAll(options: {
    type: 'window';
    includeUncontrolled: boolean;
  }): Promise<readonly { readonly id: string }[]>;
}

/** Where, under the shell's base URL, a shell cache keeps its marks; no file of a build is there. */
export const SHELL_MARKS = '__intab-shell/';
const MARKS = SHELL_MARKS;
/** A mark per page of the build still open when the next build activated. */
const CLIENT_MARK = `${MARKS}client/`;
/** The order of activation: a shell's number is one more than any other's when it activates. */
const GENERATION_MARK = `${MARKS}generation`;

/**
 * The current shell and, while its pages may be open, the previous one.
 *
 * @example
 * const shells = new ShellGenerations('intab-shell-abc', 'intab-shell-', base, self.clients);
 * self.addEventListener('activate', (e) => e.waitUntil(shells.activate()));
 * const hit = await shells.previousCopy('https://app.test/assets/conversations-x1.js');
 */
export class ShellGenerations {
  /** The previous shell's name once known, null when there is none; unknown after a restart. */
  #previous: Promise<string | null> | null = null;
  #known: string | null | undefined = undefined;

  constructor(
    private readonly current: string,
    private readonly prefix: string,
    private readonly base: URL,
    /** Absent (a test's scope): no page is known, so the previous shell goes at activate. */
    private readonly clients: WindowClients | undefined,
  ) {}

  /**
   * On activate: numbers the current shell, keeps the previous one with a mark for each open window
   * (or deletes it when none is open), and deletes every older one.
   */
  async activate(): Promise<void> {
    const others = await this.#others();
    const current = await caches.open(this.current);
    const top = Math.max(0, ...others.map((o) => o.generation ?? 0));
    await current.put(this.#url(GENERATION_MARK), new Response(String(top + 1)));
    const [previous, ...older] = others;
    for (const o of older) await caches.delete(o.name);
    const open = await this.#openWindows();
    if (previous && open.length > 0) {
      const cache = await caches.open(previous.name);
      // A shell from before the marks: numbered now, so that a restarted worker finds it.
      if (previous.generation === null) await cache.put(this.#url(GENERATION_MARK), new Response('0'));
      for (const id of open)
        await cache.put(this.#url(CLIENT_MARK + encodeURIComponent(id)), new Response(''));
      this.#set(previous.name);
    } else {
      if (previous) await caches.delete(previous.name);
      this.#set(null);
    }
  }

  /** Deletes the previous shell once none of its pages is open. */
  async prune(): Promise<void> {
    const previous = await this.#previousName();
    if (!previous) return;
    const open = new Set(await this.#openWindows());
    const marked = (await (await caches.open(previous)).keys()).map((r) => this.#clientOf(r.url));
    if (marked.some((id) => id !== null && open.has(id))) return;
    await caches.delete(previous);
    this.#set(null);
  }

  /**
   * Whether the previous shell may hold a file (it exists, or is not known yet after a restart): a
   * fetch listener must decide at once whether to answer.
   */
  mayHoldPrevious(): boolean {
    return this.#known !== null;
  }

  /**
   * The previous build's copy of a file it precached under its bare URL (a hashed file: the same
   * name is the same bytes), or undefined.
   */
  async previousCopy(href: string): Promise<Response | undefined> {
    const previous = await this.#previousName();
    if (!previous || href.startsWith(this.#url(MARKS))) return undefined;
    return (await caches.open(previous)).match(href);
  }

  /** A fetch event: a navigation (a tab opened or reloaded) deletes the previous shell if its last page is gone. */
  onFetch(event: { request: Request; waitUntil?(p: Promise<unknown>): void }): void {
    if (event.request.mode !== 'navigate' || this.#known === null) return;
    event.waitUntil?.(this.prune().catch(() => {}));
  }

  #set(previous: string | null): void {
    this.#known = previous;
    this.#previous = Promise.resolve(previous);
  }

  /**
   * After a restart: the other shell the last activate kept. One without a number is a build being
   * installed (or one whose install failed), never a previous one: it is left alone.
   */
  #previousName(): Promise<string | null> {
    this.#previous ??= this.#others().then((others) => {
      const name = others.find((o) => o.generation !== null)?.name ?? null;
      this.#known = name;
      return name;
    });
    return this.#previous;
  }

  /** The other shell caches, the last activated first; null: never activated with the marks. */
  async #others(): Promise<{ name: string; generation: number | null }[]> {
    const names = (await caches.keys()).filter((n) => n.startsWith(this.prefix) && n !== this.current);
    const numbered = await Promise.all(
      names.map(async (name) => {
        const mark = await (await caches.open(name)).match(this.#url(GENERATION_MARK));
        const generation = mark ? Number(await mark.text()) : Number.NaN;
        return { name, generation: Number.isFinite(generation) ? generation : null };
      }),
    );
    return numbered.sort((a, b) => (b.generation ?? -1) - (a.generation ?? -1));
  }

  async #openWindows(): Promise<string[]> {
    if (!this.clients) return [];
    const windows = await this.clients.matchAll({ type: 'window', includeUncontrolled: true });
    return windows.map((w) => w.id);
  }

  #url(path: string): string {
    return new URL(path, this.base).href;
  }

  #clientOf(href: string): string | null {
    const at = this.#url(CLIENT_MARK);
    return href.startsWith(at) ? decodeURIComponent(href.slice(at.length)) : null;
  }
}
