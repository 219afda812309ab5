/**
 * intab's one precache policy, shared by the Vite plugin (what it leaves out of the precache, and the
 * globs a workbox app passes to its own) and the service worker (what it caches on first use).
 *
 * - Precached at install: the app's shell (its HTML, JS, CSS, icons) and intab's runtime (the page
 *   client, the engine worker, the core), everything in the build but the assets below.
 * - Cached on first use, then offline: {@link LAZY_ASSETS}, each fetched only by the feature that needs it.
 * - Never cached by the service worker: `/v1/*` (the API itself) and model weights, which web-llm and
 *   wllama keep in their own caches (Cache Storage, OPFS).
 */

/** One lazily fetched part of a build: its file names (a glob relative to the build folder) and what it is for. */
export interface LazyAsset {
  glob: string;
  what: string;
}

/** The build's lazy assets: never precached, cached by intab's service worker the first time they are fetched. */
export const LAZY_ASSETS: readonly LazyAsset[] = [
  { glob: 'assets/web-llm-*.js', what: "web-llm's library (~6 MB), when a WebGPU model is first used" },
  { glob: 'assets/wllama-*', what: "llama.cpp's wasm and wllama's JS, when a GGUF model is first used" },
  { glob: 'assets/pdfjs-*.js', what: 'pdf.js, with the first PDF input_file' },
  { glob: 'assets/o200k-*.js', what: 'the o200k tables, when a vector store first chunks a file' },
  {
    glob: 'assets/web-xgrammar-*.js',
    what: 'web-xgrammar, with the first json_schema or tool grammar on web-llm',
  },
  { glob: 'intab-python/**', what: 'Pyodide and the sandbox, when code_interpreter first runs' },
];

/** {@link LAZY_ASSETS}' globs, for a precache's ignore list (workbox's `globIgnores`). */
export const LAZY_ASSET_GLOBS: readonly string[] = LAZY_ASSETS.map((a) => a.glob);

/** Where intab's service worker keeps the lazy assets it fetched (the demo's shell kept its hashed assets here before, too). */
export const LAZY_ASSET_CACHE = 'intab-assets';

/** The hashed lazy chunks, by the prefix of their names (`assets/<prefix>-<hash>.<ext>`), one per feature. */
export const LAZY_CHUNKS = ['web-llm', 'wllama', 'pdfjs', 'o200k', 'web-xgrammar'] as const;
export type LazyChunk = (typeof LAZY_CHUNKS)[number];

/** Hashed names, right inside the build's `assets/`: a cached copy never goes stale. */
const HASHED_LAZY = new RegExp(`^(?:${LAZY_CHUNKS.join('|')})-[^/]+$`);
/**
 * Pyodide's files keep their package's names (no hash): revalidated, kept for offline. They sit at
 * the origin's root whatever the app's base (the sandbox's `PYTHON_ASSET_PATH`).
 */
const PYTHON_ASSET = /^\/intab-python\/[^/]+$/;

/**
 * How a same-origin path is cached: `'hashed'` (cache first), `'unhashed'` (network first, the
 * cached copy offline), or null when it is no lazy asset of intab's. `basePath` is where the build
 * is served (the service worker's folder, `/` by default): only its own `assets/` folder holds
 * intab's chunks, so an app path that merely looks like one (`/docs/assets/wllama-notes.txt`) is
 * left to the app.
 *
 * @example
 * lazyAssetKind('/assets/wllama-DrYk.wasm'); // 'hashed'
 * lazyAssetKind('/app/assets/wllama-DrYk.wasm', '/app/'); // 'hashed'
 */
export function lazyAssetKind(pathname: string, basePath = '/'): 'hashed' | 'unhashed' | null {
  const assets = `${basePath}assets/`;
  if (pathname.startsWith(assets) && HASHED_LAZY.test(pathname.slice(assets.length))) return 'hashed';
  if (PYTHON_ASSET.test(pathname)) return 'unhashed';
  return null;
}

/** How long a failed import waits for its chunk's cached copies to be dropped: local storage, but a wait all the same. */
const FORGET_BOUND_MS = 2_000;

/**
 * `load()` (a dynamic import of `chunk`'s code); when it fails, `chunk`'s kept copies are dropped
 * from the service worker's runtime cache before the error goes on, so the next try fetches them
 * again rather than failing on a bad copy (cache first, under a hashed name) until site data is cleared.
 *
 * @example
 * const pdfjs = await importLazy('pdfjs', () => import('pdfjs-dist/legacy/build/pdf.mjs'));
 */
export async function importLazy<T>(chunk: LazyChunk, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    await forgetLazyChunk(chunk);
    throw err;
  }
}

/**
 * Drops every copy of `chunk`'s files from {@link LAZY_ASSET_CACHE}. Never throws, and waits at most
 * {@link FORGET_BOUND_MS}; nothing to do where there is no Cache Storage (Node) or no such cache.
 *
 * @example
 * await forgetLazyChunk('wllama');
 */
export async function forgetLazyChunk(chunk: LazyChunk): Promise<void> {
  const storage = typeof caches === 'undefined' ? undefined : caches;
  if (!storage) return;
  const work = (async () => {
    if (!(await storage.has(LAZY_ASSET_CACHE))) return;
    const cache = await storage.open(LAZY_ASSET_CACHE);
    for (const request of await cache.keys()) {
      const path = new URL(request.url).pathname;
      if (/\/assets\/[^/]+$/.test(path) && path.slice(path.lastIndexOf('/') + 1).startsWith(`${chunk}-`))
        await cache.delete(request);
    }
  })().catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FORGET_BOUND_MS);
  });
  await Promise.race([work, bound]);
  clearTimeout(timer);
}
