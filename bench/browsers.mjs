#!/usr/bin/env node
/**
 * `npm run bench:browsers`: decode tokens/s of the bench GGUF in Chromium, Firefox ESR and WebKitGTK
 * (as shipped and Safari-like); the bench itself is bench/browsers-run.ts. It is TypeScript because
 * it drives the browsers with the matrix's own drivers (tests/browsers/drivers/*.ts); Vite's SSR
 * module loader runs it, so it needs no vitest project (`npm test` never runs it) and no TypeScript
 * loader of its own.
 *
 * @example
 * npm run bench:browsers
 * BENCH_BROWSERS=webkit BENCH_SKIP_BUILD=1 npm run bench:browsers  # one column again
 */
import { resolve } from 'node:path';
import { createServer } from 'vite';

const root = resolve(import.meta.dirname, '..');
// A Vite server in middleware mode (it listens nowhere) only to load the bench's TypeScript with its
// module runner, kept open while the bench runs: its modules import lazily (the GGUF builder's
// vocabulary), and `runnerImport` closes its runner once the first import is done. configFile false:
// the bench builds and serves the app with the repo's vite.config.ts itself.
const loader = await createServer({
  configFile: false,
  root,
  logLevel: 'warn',
  appType: 'custom',
  server: { middlewareMode: true, hmr: false, ws: false },
  optimizeDeps: { noDiscovery: true, include: [] },
});
try {
  const bench = await loader.ssrLoadModule(resolve(root, 'bench/browsers-run.ts'));
  process.exitCode = await bench.main();
} finally {
  await loader.close();
}
