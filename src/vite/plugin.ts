/**
 * `intab/vite`: the Vite plugin that builds intab into an app: the engine worker (a module worker,
 * with web-llm as a lazy chunk of its own), the service worker (bundled into one classic script at
 * the site root), and a JSON 503 for `/v1/*` requests that reach the dev or preview server before
 * the service worker controls the page.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { AppBuild, bundleScript } from './app-build.ts';
import { mcpZodApart } from './mcp-zod-apart.ts';
import { lazyAssetSizes, MAX_PRECACHED_FILE_BYTES, precacheManifest } from './precache-manifest.ts';
import { pythonAssetsPlugin } from './python-assets.ts';

export { LAZY_ASSET_GLOBS, LAZY_ASSETS } from '../common/lazy-assets.ts';

/** Hashed chunks of web-llm's ~6 MB library: cached at runtime when a real model is first used, not precached. */
export const WEB_LLM_CHUNK = 'assets/web-llm-[hash].js';
/**
 * pdf.js (its API and its parser), chunks of their own fetched with the first PDF `input_file`: not
 * precached, so a page that never sends a PDF downloads none of it; cached at runtime once used.
 */
export const PDFJS_CHUNK = 'assets/pdfjs-[hash].js';
/** wllama's JavaScript (llama.cpp's glue), a chunk of its own fetched when a GGUF model is first used. */
export const WLLAMA_CHUNK = 'assets/wllama-[hash].js';
/**
 * gpt-tokenizer's o200k_base tables (~2 MB), which vector stores chunk files with: fetched when a
 * file is first indexed, not precached, so an app that never uses `file_search` never downloads them.
 */
export const O200K_CHUNK = 'assets/o200k-[hash].js';
/** web-xgrammar (~1 MB), loaded with the first grammar web-llm compiles: not precached. */
export const WEB_XGRAMMAR_CHUNK = 'assets/web-xgrammar-[hash].js';

/**
 * Headers that make the page cross-origin isolated, so llama.cpp gets SharedArrayBuffer and runs
 * on several threads. Set on every response of the dev and preview servers; production hosts must
 * send them too (see the README).
 */
export const CROSS_ORIGIN_ISOLATION: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export interface ServiceWorkerOptions {
  /** The service worker's source; intab's own minimal one (the `/v1` handler, nothing else) by default. */
  entry?: string;
  /** Its file name at the site root, which is also its URL (`startIntab({ swUrl })`). Default `sw.js`. */
  fileName?: string;
  /**
   * Precache the built app for offline use (default true): the build's files but intab's lazy
   * assets (`LAZY_ASSET_GLOBS`, cached on first use instead) are listed in `self.__WB_MANIFEST`,
   * which intab's own service worker fetches at install and serves offline. A custom `entry` reads
   * it too (workbox-precaching's `precacheAndRoute(self.__WB_MANIFEST)` takes it as it is).
   * `false`: no precache; the app is online-only but for what intab caches on first use.
   */
  precache?: boolean;
  /**
   * Navigations intab's own service worker never answers with the app's `index.html`, even offline
   * (workbox's option), tested against the path and query: e.g. `[/^\/api\//]` for the app's server
   * routes. Added to the default list: URLs of files (a name with an extension other than `.html`)
   * and `/v1/`. Other navigations go to the network; the page is the fallback when that fails.
   */
  navigateFallbackDenylist?: RegExp[];
  /**
   * The app's client-side routes, answered with its `index.html` at once, online too (and even
   * with a dot in them); `navigateFallbackDenylist` still wins. Default none.
   */
  navigateFallbackAllowlist?: RegExp[];
}

export interface IntabPluginOptions {
  /** The service worker to build; `false` when the app has its own and imports `intab/sw` into it. */
  serviceWorker?: ServiceWorkerOptions | false;
  /**
   * Make the app's pages cross-origin isolated (multi-threaded llama.cpp): the dev and preview
   * servers send COOP/COEP, and intab's own service worker adds them to the pages and same-origin
   * files it serves, so the app is isolated from its second load on any host, even one that cannot
   * send headers (GitHub Pages, most CDNs). Default true (`COEP: require-corp`); `'credentialless'`
   * for apps that load cross-origin images or scripts without CORP headers (Chromium, Firefox);
   * false to leave every response as the host sends it.
   */
  crossOriginIsolation?: boolean | 'credentialless';
}

/**
 * @example
 * // vite.config.ts
 * import { defineConfig } from 'vite';
 * import { intab } from 'intab/vite';
 * export default defineConfig({ plugins: [intab()] });
 */
export function intab(opts: IntabPluginOptions = {}): Plugin[] {
  const plugins = [workerPlugin(), apiReachedServerPlugin(), pythonAssetsPlugin()];
  const coep =
    opts.crossOriginIsolation === false
      ? false
      : opts.crossOriginIsolation === 'credentialless'
        ? 'credentialless'
        : 'require-corp';
  if (coep) plugins.push(isolationPlugin(coep));
  if (opts.serviceWorker !== false) plugins.push(serviceWorkerPlugin(opts.serviceWorker ?? {}, coep));
  return plugins;
}

/** Module workers, web-llm in a chunk of its own, and intab kept out of dependency pre-bundling. */
function workerPlugin(): Plugin {
  return {
    name: 'intab:worker',
    config: () => ({
      // Pre-bundling would inline intab and lose `new Worker(new URL('./engine-worker.js', import.meta.url))`.
      // Its CommonJS dependency (ajv, for request schemas) still needs it on the dev server, which
      // cannot take named imports from CommonJS: `intab > …` pre-bundles it as intab's dependency.
      optimizeDeps: { exclude: ['intab'], include: ['intab > ajv/dist/2020.js'] },
      worker: {
        // Module workers keep web-llm a lazy chunk of the engine worker instead of inlining it.
        format: 'es',
        plugins: () => [mcpZodApart()],
        rolldownOptions: {
          output: {
            chunkFileNames: (chunk: { moduleIds: string[] }) => {
              if (chunk.moduleIds.some((id) => id.includes('@mlc-ai/web-llm'))) return WEB_LLM_CHUNK;
              if (chunk.moduleIds.some((id) => id.includes('@wllama/wllama'))) return WLLAMA_CHUNK;
              if (chunk.moduleIds.some((id) => id.includes('pdfjs-dist'))) return PDFJS_CHUNK;
              if (chunk.moduleIds.some((id) => id.includes('gpt-tokenizer'))) return O200K_CHUNK;
              // The package's copy is lib/chunks/web-xgrammar-*.js, the repository's @mlc-ai/web-xgrammar.
              if (chunk.moduleIds.some((id) => id.includes('web-xgrammar'))) return WEB_XGRAMMAR_CHUNK;
              return 'assets/[name]-[hash].js';
            },
          },
        },
      },
    }),
  };
}

/**
 * Bundles the service worker into one classic script (registrable in every browser; nothing is
 * left to import). Returns the code when `outDir` is null (dev), else writes `outDir/fileName`.
 */
function bundleServiceWorker(
  root: string,
  entry: string,
  fileName: string,
  outDir: string | null,
  defines: Readonly<Record<string, string>>,
): Promise<string> {
  return bundleScript(
    root,
    outDir,
    { entry, formats: ['iife'], name: 'intabSw', fileName: () => fileName },
    {
      // workbox's modules log verbosely unless they see production.
      'process.env.NODE_ENV': JSON.stringify(outDir ? 'production' : 'development'),
      // intab's default service worker reads its own (sw/default-entry.ts); other entries ignore them.
      ...defines,
      // What intab's runtime cache checks a lazy asset's length against (sw/lazy-cache.ts), in
      // any entry that installs intab; the dev server serves none of them from assets/.
      ...(outDir ? { __INTAB_LAZY_SIZES__: JSON.stringify(lazyAssetSizes(outDir)) } : {}),
    },
  );
}

/**
 * The service worker at `/{fileName}` (root scope). In `vite build` it is bundled after the app
 * (and, unless `precache: false`, the build's manifest is written into `self.__WB_MANIFEST`, the
 * step workbox's injectManifest runs). In `vite dev` it is bundled on request with
 * an empty manifest, so the dev server runs the same runtime, minus offline.
 */
function serviceWorkerPlugin(opts: ServiceWorkerOptions, coep: Coep): Plugin {
  const defines = {
    __INTAB_ISOLATION__: JSON.stringify(coep),
    // RegExps as [source, flags]: a define holds JSON.
    __INTAB_NAVIGATION__: JSON.stringify({
      deny: (opts.navigateFallbackDenylist ?? []).map((re) => [re.source, re.flags]),
      allow: (opts.navigateFallbackAllowlist ?? []).map((re) => [re.source, re.flags]),
    }),
  };
  const entry = opts.entry ?? defaultEntry();
  const fileName = opts.fileName ?? 'sw.js';
  const app = new AppBuild();
  // What the app's build wrote itself (its chunks and assets, the engine worker's included), as
  // against what it copied from `public/`: only the former's hashed names may go unrevisioned.
  const emitted = new Set<string>();
  return {
    name: 'intab:service-worker',
    ...app.hooks,
    writeBundle(_output, bundle) {
      if (this.environment?.name === 'client') for (const name of Object.keys(bundle)) emitted.add(name);
    },
    configureServer(server) {
      let cached: Promise<string> | null = null;
      server.watcher.on('change', () => {
        cached = null;
      });
      server.middlewares.use(`/${fileName}`, (_req, res: ServerResponse, next) => {
        cached ??= bundleServiceWorker(app.root, resolve(app.root, entry), fileName, null, defines).then(
          (code) => code.replaceAll(MANIFEST_SLOT, '[]'),
        );
        cached.then(
          (code) => {
            res.setHeader('content-type', 'text/javascript');
            res.setHeader('cache-control', 'no-cache');
            res.end(code);
          },
          (err: unknown) => {
            cached = null;
            next(err);
          },
        );
      });
    },
    async closeBundle() {
      // A service worker for no app (a failed build) helps nobody.
      if (!app.builtClient(this)) return;
      await bundleServiceWorker(app.root, resolve(app.root, entry), fileName, app.outDir, defines);
      const swPath = resolve(app.outDir, fileName);
      const code = readFileSync(swPath, 'utf8');
      if (!code.includes(MANIFEST_SLOT)) {
        if (opts.precache === true) this.warn(`${fileName} reads no self.__WB_MANIFEST: nothing to precache`);
        return;
      }
      if (opts.precache === false) {
        writeFileSync(swPath, code.replaceAll(MANIFEST_SLOT, '[]'));
        return;
      }
      const manifest = precacheManifest(app.outDir, [fileName], emitted);
      writeFileSync(swPath, code.replaceAll(MANIFEST_SLOT, JSON.stringify(manifest.entries)));
      for (const url of manifest.tooBig)
        this.warn(`${url} is over ${MAX_PRECACHED_FILE_BYTES} bytes: not precached`);
      const kib = (manifest.bytes / 1024).toFixed(0);
      this.info?.(`${fileName} precaches ${manifest.entries.length} files (${kib} KiB)`);
    },
  };
}

/** Where the build's manifest goes in the service worker's code (workbox's name for it). */
const MANIFEST_SLOT = 'self.__WB_MANIFEST';

/** intab's own service worker: the built entry beside this file in the package, the TypeScript in the repo. */
function defaultEntry(): string {
  const lib = fileURLToPath(new URL('./sw-default.js', import.meta.url));
  return existsSync(lib) ? lib : fileURLToPath(new URL('../../sw/default-entry.ts', import.meta.url));
}

/** The COEP intab isolates with, or false for none. */
type Coep = 'require-corp' | 'credentialless' | false;

/** COOP/COEP on every response of the dev and preview servers (see {@link CROSS_ORIGIN_ISOLATION}). */
function isolationPlugin(coep: 'require-corp' | 'credentialless'): Plugin {
  const middleware = (_req: unknown, res: ServerResponse, next: () => void): void => {
    for (const [name, value] of Object.entries(CROSS_ORIGIN_ISOLATION)) res.setHeader(name, value);
    res.setHeader('Cross-Origin-Embedder-Policy', coep);
    next();
  };
  return {
    name: 'intab:cross-origin-isolation',
    configureServer: (server) => void server.middlewares.use(middleware),
    configurePreviewServer: (server) => void server.middlewares.use(middleware),
  };
}

/**
 * `/v1/*` is answered by the service worker. A request that reaches the server came from a page the
 * worker does not control yet (first paint before `clients.claim()`, a Shift+reload): answer with
 * OpenAI's error shape instead of the SPA fallback's index.html, which would read as a 200.
 */
function apiReachedServerPlugin(): Plugin {
  const body = JSON.stringify({
    error: {
      message: 'The intab service worker does not control this page yet; await startIntab().ready first.',
      type: 'server_error',
      param: null,
      code: 'engine_unavailable',
    },
  });
  const middleware = (_req: unknown, res: ServerResponse): void => {
    res.statusCode = 503;
    res.setHeader('content-type', 'application/json');
    res.end(body);
  };
  return {
    name: 'intab:api-reached-server',
    configureServer: (server) => void server.middlewares.use('/v1/', middleware),
    configurePreviewServer: (server) => void server.middlewares.use('/v1/', middleware),
  };
}
