/**
 * Issue 43: the lazy-asset cache kept any 200, so pdf.js's chunk or llama.cpp's wasm answered once
 * with an SPA host's `index.html` was served cache first under its hashed name, and PDF input (or
 * every GGUF) failed until site data was cleared. It keeps only what can be the file: its
 * extension's type, not HTML, the build's length, a wasm module's magic number.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LAZY_ASSET_CACHE, routeLazyAssets } from '../../../sw/lazy-cache';
import { MemoryCacheStorage } from '../../helpers/cache-storage';

type Listener = (event: { request: Request; respondWith(r: Promise<Response>): void }) => void;

function scope() {
  let listener: Listener | null = null;
  routeLazyAssets({
    location: { origin: 'https://app.test', href: 'https://app.test/sw.js' },
    addEventListener: (_t, l) => (listener = l),
  });
  return async (url: string): Promise<Response> => {
    let answer: Promise<Response> | null = null;
    listener?.({ request: new Request(url), respondWith: (r) => (answer = r) });
    if (!answer) throw new Error(`not answered: ${url}`);
    return answer;
  };
}

const file = (body: BodyInit, type: string) => new Response(body, { headers: { 'content-type': type } });
const INDEX_HTML = () => file('<!doctype html><title>app</title>', 'text/html; charset=utf-8');
const WASM = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
const offline = async (): Promise<Response> => {
  throw new TypeError('Failed to fetch');
};

afterEach(() => vi.unstubAllGlobals());

describe('the lazy-asset cache keeps only the asset', () => {
  it('serves an SPA’s index.html for a chunk without keeping it, and keeps the real chunk on the next try', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    vi.stubGlobal('fetch', async () => INDEX_HTML());
    const answer = scope();
    const url = 'https://app.test/assets/pdfjs-Ab12Cd34.js';
    expect((await answer(url)).headers.get('content-type')).toContain('text/html');
    expect(storage.paths(LAZY_ASSET_CACHE)).toEqual([]);
    const network = vi.fn(async () => file('export const pdf = 1;', 'text/javascript'));
    vi.stubGlobal('fetch', network);
    expect(await (await answer(url)).text()).toBe('export const pdf = 1;');
    expect(network).toHaveBeenCalledTimes(1);
    vi.stubGlobal('fetch', offline);
    expect(await (await answer(url)).text()).toBe('export const pdf = 1;');
  });

  it('keeps a file only when its type fits its extension, and a .wasm only when it is a wasm module', async () => {
    const cases: [string, () => Response, boolean][] = [
      ['assets/wllama-Ab12Cd34.wasm', () => file(WASM, 'application/wasm'), true],
      ['assets/wllama-Bb12Cd34.wasm', () => file(WASM, 'application/octet-stream'), true],
      ['assets/wllama-Cb12Cd34.wasm', () => file('<!doctype html>', 'application/wasm'), false],
      ['assets/wllama-Db12Cd34.wasm', INDEX_HTML, false],
      ['assets/wllama-Eb12Cd34.wasm', () => file(WASM, 'text/plain'), false],
      ['assets/o200k-Ab12Cd34.js', () => file('export {}', 'application/javascript; charset=utf-8'), true],
      ['assets/o200k-Bb12Cd34.js', () => file('{"error":1}', 'application/json'), false],
      ['assets/o200k-Cb12Cd34.js', () => new Response('export {}'), false],
      ['intab-python/pyodide-lock.json', () => file('{}', 'application/json'), true],
      ['intab-python/pyodide-lock.json', INDEX_HTML, false],
      ['intab-python/python_stdlib.zip', () => file('PK', 'application/zip'), true],
      ['intab-python/python_stdlib.zip', INDEX_HTML, false],
    ];
    for (const [path, response, kept] of cases) {
      const storage = new MemoryCacheStorage();
      vi.stubGlobal('caches', storage);
      vi.stubGlobal('fetch', async () => response());
      expect((await scope()(`https://app.test/${path}`)).status, path).toBe(200);
      expect(storage.paths(LAZY_ASSET_CACHE), `${path} ${kept}`).toEqual(kept ? [`/${path}`] : []);
    }
  });

  it('keeps a hashed file only at the length the build gave it', async () => {
    vi.stubGlobal('__INTAB_LAZY_SIZES__', { 'assets/web-llm-Ab12Cd34.js': 10 });
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    vi.stubGlobal('fetch', async () => file('export {}', 'text/javascript'));
    const answer = scope();
    await answer('https://app.test/assets/web-llm-Ab12Cd34.js');
    expect(storage.paths(LAZY_ASSET_CACHE)).toEqual([]);
    vi.stubGlobal('fetch', async () => file('export {};', 'text/javascript'));
    await answer('https://app.test/assets/web-llm-Ab12Cd34.js');
    // A file the build did not size is kept on its type alone.
    await answer('https://app.test/assets/web-llm-Zz12Cd34.js');
    expect(storage.paths(LAZY_ASSET_CACHE)).toEqual([
      '/assets/web-llm-Ab12Cd34.js',
      '/assets/web-llm-Zz12Cd34.js',
    ]);
  });

  it('drops a page kept by an older worker under a chunk’s name, and fetches the chunk again', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    const url = 'https://app.test/assets/wllama-Ab12Cd34.js';
    await (await storage.open(LAZY_ASSET_CACHE)).put(url, INDEX_HTML());
    const network = vi.fn(async () => file('export {}', 'text/javascript'));
    vi.stubGlobal('fetch', network);
    expect(await (await scope()(url)).text()).toBe('export {}');
    expect(network).toHaveBeenCalledTimes(1);
    expect(await (await storage.match(url))?.text()).toBe('export {}');
  });

  it('never lets a page replace a kept Pyodide file, so offline still gets the real one', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    const url = 'https://app.test/intab-python/pyodide.asm.wasm';
    vi.stubGlobal('fetch', async () => file(WASM, 'application/wasm'));
    const answer = scope();
    await answer(url);
    vi.stubGlobal('fetch', async () => INDEX_HTML());
    await answer(url);
    vi.stubGlobal('fetch', offline);
    expect(new Uint8Array(await (await answer(url)).arrayBuffer())).toEqual(WASM);
  });
});
