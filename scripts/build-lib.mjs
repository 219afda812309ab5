#!/usr/bin/env node
/**
 * Builds the npm package into lib/: one ES module per entry (dependencies left as imports, shared
 * code in lib/chunks/), and type declarations in lib/types/. `npm pack` runs it (prepack).
 *
 * The page entry starts the engine worker with `new Worker(new URL('./engine-worker.js',
 * import.meta.url), { type: 'module' })`: the app's bundler (Vite, with `intab/vite`) sees that
 * pattern in lib/index.js and bundles the worker, resolving its imports from the app's node_modules.
 * Plain rolldown is used here rather than Vite, whose worker plugin would rewrite that pattern now.
 * The declarations name web-llm's types through a copy of its type-only files (web-llm-types.mjs).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { BUILDS, WASM_DIR } from './build-wasm.mjs';
import { vendorWebLlmTypes } from './web-llm-types.mjs';
import { isBundled, webXGrammarChunk, writeWebXGrammarNotice } from './web-xgrammar-chunk.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(root, 'lib');

/** Package entry → source. The `exports` map in package.json names the same files. */
const ENTRIES = {
  index: 'src/client/index.ts',
  'engine-worker': 'src/worker/engine-worker.ts',
  core: 'src/entries/core.ts',
  catalog: 'src/entries/catalog.ts',
  msw: 'src/entries/msw.ts',
  sw: 'sw/install-intab.ts',
  'sw-default': 'sw/default-entry.ts',
  vite: 'src/vite/plugin.ts',
  // The Python sandbox's worker: intab/vite bundles it into the app's /intab-python/sandbox.js.
  'python-sandbox': 'src/sandbox/python-worker.ts',
};

/** In the source tree the worker is a sibling folder's .ts file; in lib/ it is the entry next door. */
const WORKER_SOURCE_URL = "new URL('../worker/engine-worker.ts', import.meta.url)";
const WORKER_LIB_URL = "new URL('./engine-worker.js', import.meta.url)";

/**
 * intab's SIMD llama.cpp builds (wasm/simd/, threaded, issue 34; wasm/simd-st/, one thread, issue 42;
 * the folder of build outputs, issue 47) ship in lib/simd/ and lib/simd-st/, next to the engine worker
 * that names them; the app's bundler emits them from there like wllama's own wasm. The list is
 * build-wasm.mjs's own, so a new build cannot be left out of the package.
 */
const SIMD_DIRS = BUILDS.map((b) => relative(WASM_DIR, b.outDir));
/** The engine worker's way to the build outputs (src/worker/ → wasm/), as its source names them. */
const WORKER_TO_WASM = relative(resolve(root, 'src/worker'), WASM_DIR).split('\\').join('/');
const simdSourceUrl = (dir) => `new URL('${WORKER_TO_WASM}/${dir}/`;
const simdLibUrl = (dir) => `new URL('./${dir}/`;
const SIMD_FILES = ['wllama.wasm', 'wllama.js', 'manifest.json'];

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: Object.fromEntries(Object.entries(ENTRIES).map(([name, src]) => [name, resolve(root, src)])),
  platform: 'neutral',
  // web-xgrammar names its file only in `main`, which the neutral platform does not read by itself.
  resolve: { mainFields: ['module', 'main'] },
  // Every bare import (dependencies, peer dependencies, Node built-ins) stays an import, but for the
  // packages no bundler other than Vite can take as they are (web-xgrammar-chunk.mjs).
  external: (id) =>
    builtins.has(id) || !(id.startsWith('.') || id.startsWith('/') || /^[A-Za-z]:/.test(id) || isBundled(id)),
  plugins: [
    webXGrammarChunk(),
    {
      name: 'intab:lib-worker-url',
      transform(code, id) {
        if (!id.endsWith('engine-worker-client.ts')) return null;
        if (!code.includes(WORKER_SOURCE_URL))
          this.error(`${id} no longer starts the worker with ${WORKER_SOURCE_URL}`);
        return code.replace(WORKER_SOURCE_URL, WORKER_LIB_URL);
      },
    },
    {
      name: 'intab:lib-simd-url',
      transform(code, id) {
        if (!id.endsWith('worker/engine-worker.ts')) return null;
        let out = code;
        for (const dir of SIMD_DIRS) {
          if (!out.includes(simdSourceUrl(dir)))
            this.error(`${id} no longer names the ${dir} build with ${simdSourceUrl(dir)}`);
          out = out.replaceAll(simdSourceUrl(dir), simdLibUrl(dir));
        }
        return out;
      },
    },
  ],
});
await bundle.write({
  dir: out,
  format: 'es',
  entryFileNames: '[name].js',
  chunkFileNames: (chunk) =>
    chunk.moduleIds.some((id) => id.includes('@mlc-ai/web-xgrammar'))
      ? 'chunks/web-xgrammar-[hash].js'
      : 'chunks/[name]-[hash].js',
});
await bundle.close();
writeWebXGrammarNotice({ root, out });
for (const dir of SIMD_DIRS) {
  mkdirSync(resolve(out, dir), { recursive: true });
  for (const f of SIMD_FILES) copyFileSync(resolve(WASM_DIR, dir, f), resolve(out, dir, f));
}

const tsconfig = resolve(root, '.tmp/tsconfig.lib.json');
mkdirSync(dirname(tsconfig), { recursive: true });
writeFileSync(
  tsconfig,
  JSON.stringify({
    extends: '../tsconfig.json',
    compilerOptions: {
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      outDir: '../lib/types',
      rootDir: '..',
      lib: ['ES2023', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable', 'WebWorker'],
      types: ['node'],
    },
    include: Object.values(ENTRIES).map((src) => `../${src}`),
    exclude: [],
  }),
);
execFileSync(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], {
  stdio: 'inherit',
});
// Apps type-check intab's declarations with `skipLibCheck: false` too; web-llm's own do not pass it.
vendorWebLlmTypes({ root, types: resolve(out, 'types') });
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
console.log(`lib/: ${Object.keys(ENTRIES).length} entries for ${pkg.name}@${pkg.version}`);
