/**
 * Issue 43: a new build must not break the lazy routes of the tabs the previous build still runs.
 * Their engine workers import chunks by the previous build's names (`conversations-A1.js`), which
 * the new build's shell and host do not have; before, the new worker deleted the previous shell on
 * activate and such an import failed (the worker's 503 `module_unavailable`). The previous shell now
 * stays while a window open at activate remains, goes on the first navigation after the last one
 * closed, and never more than one previous shell is kept.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IsolationMode } from '../../../sw/isolation';
import { routeOfflineShell, type ShellEntry } from '../../../sw/offline-shell';
import { MemoryCacheStorage } from '../../helpers/cache-storage';

type Listener = (event: {
  request: Request;
  respondWith(r: Promise<Response>): void;
  waitUntil(p: Promise<unknown>): void;
}) => void;

/** One build's service worker, with the windows `open` lists open. */
function build(manifest: ShellEntry[], open: { ids: string[] }, isolation: IsolationMode = 'require-corp') {
  const listeners = new Map<string, Listener[]>();
  routeOfflineShell(
    {
      location: { origin: 'https://app.test', href: 'https://app.test/sw.js' },
      clients: { matchAll: async () => open.ids.map((id) => ({ id })) },
      addEventListener: (type: string, l: Listener) =>
        listeners.set(type, [...(listeners.get(type) ?? []), l]),
    } as never,
    manifest,
    { skip: () => false, isolation },
  );
  /** Dispatches to every listener; resolves with the answer (null: none) once all the work is done. */
  const dispatch = async (type: string, request = new Request('https://app.test/')) => {
    const work: Promise<unknown>[] = [];
    let answer = null as Promise<Response> | null;
    for (const l of listeners.get(type) ?? [])
      l({ request, respondWith: (r) => (answer = r), waitUntil: (p) => work.push(p) });
    await Promise.all(work);
    return answer ? await answer : null;
  };
  return {
    install: () => dispatch('install'),
    activate: () => dispatch('activate'),
    fetch: (url: string) => dispatch('fetch', new Request(url)),
    navigate: (url: string) => {
      const r = new Request(url);
      Object.defineProperty(r, 'mode', { value: 'navigate' });
      return dispatch('fetch', r);
    },
  };
}

const A = [
  { url: 'index.html', revision: 'a' },
  { url: 'assets/conversations-A1.js', revision: null },
];
const B = [
  { url: 'index.html', revision: 'b' },
  { url: 'assets/conversations-B1.js', revision: null },
];
const C = [
  { url: 'index.html', revision: 'c' },
  { url: 'assets/conversations-C1.js', revision: null },
];

/** The host as deployed now: only the newest build's files exist; anything else is a 404. */
function host(files: ShellEntry[]) {
  const served = new Set(files.map((f) => `/${f.url}`));
  vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    return served.has(path) ? new Response(`host's ${path}`) : new Response('not found', { status: 404 });
  });
}

async function deploy(manifest: ShellEntry[], open: { ids: string[] }, isolation?: IsolationMode) {
  host(manifest);
  const sw = build(manifest, open, isolation);
  await sw.install();
  await sw.activate();
  return sw;
}

const shells = async (storage: MemoryCacheStorage) => (await storage.keys()).sort();

afterEach(() => vi.unstubAllGlobals());

describe('the previous build’s shell', () => {
  it('stays while a tab of it is open, so its lazy chunk still loads, and goes on the next navigation after', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    const open = { ids: [] as string[] };
    await deploy(A, open);
    const [shellA] = await shells(storage);
    open.ids = ['tab-a']; // a tab of build A, which has not used the Conversations API yet
    const b = await deploy(B, open);

    expect(await shells(storage)).toHaveLength(2);
    expect(await shells(storage)).toContain(shellA);
    // Build A's engine worker imports its chunk: build B's host has none, A's shell answers.
    const chunk = await b.fetch('https://app.test/assets/conversations-A1.js');
    expect([chunk?.status, await chunk?.text()]).toEqual([200, "host's /assets/conversations-A1.js"]);
    expect(chunk?.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    // Build B's own files and what neither build precached are as before.
    expect(await (await b.fetch('https://app.test/assets/conversations-B1.js'))?.text()).toBe(
      "host's /assets/conversations-B1.js",
    );
    expect((await b.fetch('https://app.test/assets/gone-X.js'))?.status).toBe(404);

    // A new tab (of build B) while A's is open: A's shell stays.
    open.ids = ['tab-a', 'tab-b'];
    await b.navigate('https://app.test/');
    expect(await shells(storage)).toContain(shellA);
    // A's tab closed (or reloaded into build B): the next navigation drops A's shell.
    open.ids = ['tab-b'];
    await b.navigate('https://app.test/chat');
    expect(await shells(storage)).not.toContain(shellA);
    expect(await shells(storage)).toHaveLength(1);
    expect((await b.fetch('https://app.test/assets/conversations-A1.js'))?.status).toBe(404);
  });

  it('is dropped at activate when no window is open, and never more than one is kept', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    const open = { ids: [] as string[] };
    await deploy(A, open);
    await deploy(B, open); // nothing open: A's shell goes at once, as before
    expect(await shells(storage)).toHaveLength(1);
    const [shellB] = await shells(storage);

    open.ids = ['tab-b'];
    await deploy(C, open);
    expect(await shells(storage)).toContain(shellB);
    // A fourth build while tabs of B and C are open: only C's (previous) and D's stay.
    const [shellC] = (await shells(storage)).filter((n) => n !== shellB);
    const D = [{ url: 'index.html', revision: 'd' }];
    open.ids = ['tab-b', 'tab-c'];
    const d = await deploy(D, open);
    expect(await shells(storage)).not.toContain(shellB);
    expect(await shells(storage)).toContain(shellC);
    expect(await (await d.fetch('https://app.test/assets/conversations-C1.js'))?.text()).toBe(
      "host's /assets/conversations-C1.js",
    );
  });

  it('answers its chunks with isolation off too, and a restarted worker finds it again', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    const open = { ids: [] as string[] };
    await deploy(A, open, false);
    open.ids = ['tab-a'];
    await deploy(B, open, false);
    // The worker was stopped and started again: its memory is gone, the shells are not.
    const restarted = build(B, open, false);
    const chunk = await restarted.fetch('https://app.test/assets/conversations-A1.js');
    expect(await chunk?.text()).toBe("host's /assets/conversations-A1.js");
    const [shellB] = (await storage.keys()).slice(-1);
    // Build C installs meanwhile (it waits, or its install failed): its shell is not B's previous.
    host([...B, ...C]);
    await build(C, open, false).install();
    host(B);
    open.ids = [];
    await restarted.navigate('https://app.test/');
    expect(await shells(storage)).toHaveLength(2);
    expect(await shells(storage)).toContain(shellB);
    // Nothing previous any more: with isolation off, the network is left to the browser again.
    expect(await restarted.fetch('https://app.test/assets/other-X.js')).toBeNull();
    expect((await build(B, open, false).fetch('https://app.test/assets/conversations-C1.js'))?.status).toBe(
      404,
    );
  });
});
