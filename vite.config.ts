import { copyFileSync, createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { intab } from './src/vite/plugin.ts';

/** The tiny test GGUF (scripts/build-test-gguf.mjs), when it has been built, and where the app serves it. */
const TEST_MODEL_FILE = resolve(import.meta.dirname, '.cache/models/intab-tiny-random.gguf');
const TEST_MODEL_URL = '/test-models/intab-tiny-random.gguf';
const testModel = existsSync(TEST_MODEL_FILE) ? TEST_MODEL_URL : null;

/**
 * Serves the tiny test model (real llama.cpp, random weights) at {@link TEST_MODEL_URL} when it has
 * been built: copied into the build, streamed by the dev server. It is never precached (24 MB), and
 * the demo offers it only when it is there (`__INTAB_TEST_MODEL__`).
 */
function testModelPlugin(): Plugin {
  let outDir = 'dist';
  return {
    name: 'intab-demo:test-model',
    config: () => ({ define: { __INTAB_TEST_MODEL__: JSON.stringify(testModel) } }),
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    configureServer(server) {
      server.middlewares.use(TEST_MODEL_URL, (_req, res) => {
        res.setHeader('content-type', 'application/octet-stream');
        res.setHeader('content-length', String(statSync(TEST_MODEL_FILE).size));
        createReadStream(TEST_MODEL_FILE).pipe(res);
      });
    },
    writeBundle() {
      if (!testModel || this.environment?.name !== 'client') return;
      mkdirSync(resolve(outDir, 'test-models'), { recursive: true });
      copyFileSync(TEST_MODEL_FILE, resolve(outDir, `.${TEST_MODEL_URL}`));
    },
  };
}

/** index.html belongs to the demo; the install metadata belongs with the service worker. */
function manifestLinkPlugin(): Plugin {
  return {
    name: 'intab-demo:manifest-link',
    transformIndexHtml: () => [
      { tag: 'link', attrs: { rel: 'manifest', href: '/manifest.webmanifest' }, injectTo: 'head' },
    ],
  };
}

/**
 * The demo app (index.html → page bundle + engine worker chunk) and its service worker, built with
 * intab's own Vite plugin and nothing else: intab's default service worker precaches the shell, so the
 * installed demo reloads offline, as any app built with `intab()` does.
 *
 * @example
 * // npm start  →  scripts/start.mjs: vite build, then vite preview on PORT (4173)
 */
export default defineConfig({
  build: { target: 'es2022' },
  plugins: [intab(), manifestLinkPlugin(), testModelPlugin()],
});
