import { intab } from 'intab/vite';
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
        // web-llm's 6 MB library is fetched (and cached) only when a real model is used.
        globIgnores: ['assets/web-llm-*.js'],
      },
    }),
  ],
});
