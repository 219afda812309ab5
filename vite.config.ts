import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { build, defineConfig, type Plugin, type Rolldown } from 'vite';

/** Hashed chunks of web-llm's ~6 MB library: cached at runtime when a real model is first used, not precached. */
const WEB_LLM_CHUNK = 'assets/web-llm-[hash].js';

/**
 * Bundles `sw/service-worker.ts` into one classic script (registrable in every browser; nothing is
 * left to import). Returns the code when `outDir` is null (dev), else writes `outDir/sw.js`.
 */
async function bundleServiceWorker(root: string, outDir: string | null): Promise<string> {
  const output = await build({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    // workbox's modules log verbosely unless they see production.
    define: { 'process.env.NODE_ENV': JSON.stringify(outDir ? 'production' : 'development') },
    build: {
      outDir: outDir ?? 'dist',
      write: outDir !== null,
      emptyOutDir: false,
      copyPublicDir: false,
      target: 'es2022',
      lib: {
        entry: resolve(root, 'sw/service-worker.ts'),
        formats: ['iife'],
        name: 'intabSw',
        fileName: () => 'sw.js',
      },
    },
  });
  const first = (Array.isArray(output) ? output[0] : output) as Rolldown.RolldownOutput;
  return first.output[0].code;
}

/**
 * The service worker at `/sw.js` (root scope). In `vite build` it is bundled after the app and
 * workbox-build's injectManifest writes the precache manifest into `self.__WB_MANIFEST` (the step
 * vite-plugin-pwa runs; done here so the output is `sw.js`). In `vite dev` it is bundled on request
 * with an empty manifest, so the dev server runs the same runtime, minus offline.
 */
function serviceWorkerPlugin(): Plugin {
  let root = process.cwd();
  let outDir = 'dist';
  let failed = false;
  return {
    name: 'intab:service-worker',
    configResolved(config) {
      root = config.root;
      outDir = resolve(config.root, config.build.outDir);
    },
    // index.html belongs to the demo; the install metadata belongs with the service worker.
    transformIndexHtml: () => [
      { tag: 'link', attrs: { rel: 'manifest', href: '/manifest.webmanifest' }, injectTo: 'head' },
    ],
    configureServer(server) {
      let cached: Promise<string> | null = null;
      server.watcher.on('change', (file) => {
        if (/[/\\](sw|src[/\\](worker|core))[/\\]/.test(file)) cached = null;
      });
      server.middlewares.use('/sw.js', (_req, res: ServerResponse, next) => {
        cached ??= bundleServiceWorker(root, null).then((code) => code.replace('self.__WB_MANIFEST', '[]'));
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
    buildEnd(error) {
      failed = Boolean(error);
    },
    async closeBundle() {
      // Rolldown runs closeBundle after a failed build too; a service worker for no app helps nobody.
      if (failed || this.environment?.config.command !== 'build' || this.environment.name !== 'client')
        return;
      await bundleServiceWorker(root, outDir);
      const swPath = resolve(outDir, 'sw.js');
      const { injectManifest } = await import('workbox-build');
      const result = await injectManifest({
        swSrc: swPath,
        swDest: swPath,
        globDirectory: outDir,
        globPatterns: ['**/*.{html,js,css,svg,png,ico,webmanifest,wasm}'],
        globIgnores: ['sw.js', WEB_LLM_CHUNK.replace('[hash]', '*')],
        // Vite's hashed file names are their own revision.
        dontCacheBustURLsMatching: /^assets\//,
        maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
      });
      for (const warning of result.warnings) this.warn(warning);
      this.info?.(`sw.js precaches ${result.count} files (${(result.size / 1024).toFixed(0)} KiB)`);
    },
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

/**
 * The app (index.html → page bundle + engine worker chunk) and its service worker.
 *
 * @example
 * // npm start  →  vite build && vite preview --port ${PORT:-4173} --strictPort
 */
export default defineConfig({
  build: { target: 'es2022' },
  worker: {
    // Module workers keep web-llm a lazy chunk of the engine worker instead of inlining it.
    format: 'es',
    rolldownOptions: {
      output: {
        chunkFileNames: (chunk) =>
          chunk.moduleIds.some((id) => id.includes('@mlc-ai/web-llm'))
            ? WEB_LLM_CHUNK
            : 'assets/[name]-[hash].js',
      },
    },
  },
  plugins: [serviceWorkerPlugin(), apiReachedServerPlugin()],
});
