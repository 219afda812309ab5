// Builds the app into dist/ with esbuild: the page, intab's engine worker and the app's own
// service worker. Serve dist/ with any static server.
import { copyFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });

// The page and intab's engine worker, as ES modules sharing their chunks (web-llm becomes a lazy
// chunk of the worker's). esbuild does not bundle `new Worker(new URL(…))`, so the worker is an
// entry of its own, and the page names its URL: startIntab({ workerUrl: '/engine-worker.js' }).
await build({
  entryPoints: { main: 'src/main.ts', 'engine-worker': 'intab/engine-worker' },
  bundle: true,
  format: 'esm',
  splitting: true,
  target: 'es2022',
  minify: true,
  outdir: 'dist',
  logLevel: 'warning',
});

// The service worker: one classic script at the site root, so it controls every page.
await build({
  entryPoints: ['src/sw/sw.ts'],
  bundle: true,
  format: 'iife',
  target: 'es2022',
  minify: true,
  outfile: 'dist/sw.js',
  logLevel: 'warning',
});

copyFileSync('index.html', 'dist/index.html');
