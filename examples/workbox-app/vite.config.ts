import { intab, LAZY_ASSET_GLOBS } from 'intab/vite';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

export default defineConfig({
  plugins: [
    // The app builds its own service worker; intab builds only the engine worker.
    intab({ serviceWorker: false }),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src/sw',
      filename: 'sw.ts',
      injectRegister: false, // startIntab() registers it
      manifest: false,
      injectManifest: {
        // A classic script at /sw.js, registrable in every browser.
        rollupFormat: 'iife',
        globPatterns: ['**/*.{html,js,css}'],
        // intab's lazy assets (web-llm, wllama, pdf.js, o200k, web-xgrammar, Pyodide) are fetched by
        // the features that use them, and intab's part of the service worker caches them then.
        globIgnores: [...LAZY_ASSET_GLOBS],
      },
    }),
  ],
});
