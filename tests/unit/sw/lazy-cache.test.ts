/**
 * Issue 35: intab's lazy assets are cached on first use by intab's part of any service worker, and
 * served from there offline: hashed chunks cache first, Pyodide's unhashed files network first.
 * Nothing else is touched: the app's own files are left to its precache.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LAZY_ASSET_CACHE, routeLazyAssets } from '../../../sw/lazy-cache';
import { MemoryCacheStorage } from '../../helpers/cache-storage';

type Listener = (event: { request: Request; respondWith(r: Promise<Response>): void }) => void;

function scope(href?: string) {
  let listener: Listener | null = null;
  routeLazyAssets({
    location: { origin: 'https://app.test', ...(href ? { href } : {}) },
    addEventListener: (_t, l) => (listener = l),
  });
  return (request: Request): Promise<Response> | null => {
    let answer: Promise<Response> | null = null;
    listener?.({ request, respondWith: (r) => (answer = r) });
    return answer;
  };
}

/** A wasm module's first bytes, then some. */
const WASM = new TextEncoder().encode('\0asm wasm bytes');

const offline = async (): Promise<Response> => {
  throw new TypeError('Failed to fetch');
};

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('routeLazyAssets', () => {
  it('keeps a hashed lazy chunk on first use and serves it offline without the network', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    const network = vi.fn(
      async () => new Response(WASM, { headers: { 'content-type': 'application/wasm' } }),
    );
    vi.stubGlobal('fetch', network);
    const answer = scope();
    const url = 'https://app.test/assets/wllama-DrYkKwf9.wasm';
    expect(await (await answer(new Request(url)))?.text()).toBe('\0asm wasm bytes');
    expect(storage.paths(LAZY_ASSET_CACHE)).toEqual(['/assets/wllama-DrYkKwf9.wasm']);
    vi.stubGlobal('fetch', offline);
    expect(await (await answer(new Request(url)))?.text()).toBe('\0asm wasm bytes');
    expect(network).toHaveBeenCalledTimes(1);
  });

  it('does not keep a failed or partial answer', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    vi.stubGlobal('fetch', async () => new Response('nope', { status: 404 }));
    const res = await scope()(new Request('https://app.test/assets/pdfjs-abc.js'));
    expect(res?.status).toBe(404);
    expect(storage.paths(LAZY_ASSET_CACHE)).toEqual([]);
  });

  it('fetches Pyodide’s unhashed files from the network while online, and the kept copy offline', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    let version = 'v1';
    vi.stubGlobal(
      'fetch',
      async () =>
        new Response(version, { headers: { etag: `"${version}"`, 'content-type': 'application/zip' } }),
    );
    const answer = scope();
    const url = 'https://app.test/intab-python/python_stdlib.zip';
    expect(await (await answer(new Request(url)))?.text()).toBe('v1');
    version = 'v2';
    // Online, a new version is served and replaces the kept one.
    expect(await (await answer(new Request(url)))?.text()).toBe('v2');
    vi.stubGlobal('fetch', offline);
    expect(await (await answer(new Request(url)))?.text()).toBe('v2');
  });

  it('leaves everything else alone: the app’s files, the sandbox script, other origins, POSTs', async () => {
    vi.stubGlobal('caches', new MemoryCacheStorage());
    vi.stubGlobal('fetch', async () => new Response('chunk'));
    const answer = scope();
    for (const req of [
      new Request('https://app.test/assets/index-abc.js'),
      new Request('https://app.test/assets/engine-worker-abc.js'),
      new Request('https://app.test/index.html'),
      new Request('https://app.test/intab-python/sandbox.js'),
      new Request('https://cdn.test/assets/web-llm-abc.js'),
      new Request('https://app.test/v1/models'),
      new Request('https://app.test/assets/o200k-abc.js', { method: 'POST', body: 'x' }),
    ])
      expect(answer(req), req.url).toBeNull();
    for (const path of [
      'web-llm-a.js',
      'o200k-a.js',
      'web-xgrammar-a.js',
      'wllama-engine-a.js',
      'pdfjs-a.js',
    ])
      expect(await answer(new Request(`https://app.test/assets/${path}`)), path).toBeInstanceOf(Response);
  });

  it('takes only the build’s own assets/ folder, at the service worker’s base path, and Pyodide’s root folder', async () => {
    vi.stubGlobal('caches', new MemoryCacheStorage());
    vi.stubGlobal('fetch', async () => new Response('x', { headers: { 'content-type': 'text/plain' } }));
    const root = scope('https://app.test/sw.js');
    const sub = scope('https://app.test/app/sw.js');
    // App paths that merely look like intab's: the app's own, never cached forever.
    for (const answer of [root, sub])
      for (const path of ['/docs/assets/wllama-notes.txt', '/docs/intab-python/pyodide.mjs'])
        expect(answer(new Request(`https://app.test${path}`)), path).toBeNull();
    expect(sub(new Request('https://app.test/assets/pdfjs-Ab12Cd34.js'))).toBeNull();
    expect(sub(new Request('https://app.test/app/assets/pdfjs-Ab12Cd34.js'))).toBeInstanceOf(Promise);
    expect(root(new Request('https://app.test/assets/pdfjs-Ab12Cd34.js'))).toBeInstanceOf(Promise);
    expect(sub(new Request('https://app.test/intab-python/pyodide.mjs'))).toBeInstanceOf(Promise);
  });
});
