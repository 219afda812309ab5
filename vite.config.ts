import { defineConfig, type Plugin } from 'vite';
import { intab } from './src/vite/plugin.ts';

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
 * intab's own Vite plugin: the demo's service worker adds the offline app shell to intab's handler.
 *
 * @example
 * // npm start  →  scripts/start.mjs: vite build, then vite preview on PORT (4173)
 */
export default defineConfig({
  build: { target: 'es2022' },
  plugins: [
    intab({ serviceWorker: { entry: 'sw/service-worker.ts', precache: true } }),
    manifestLinkPlugin(),
  ],
});
