#!/usr/bin/env node
/**
 * Builds llama.cpp for the browser WITH ggml's wasm SIMD kernels (issue 34), for the wllama engine,
 * twice ({@link BUILDS}), each as `wllama.wasm` + its emscripten glue `wllama.js` + `manifest.json`:
 * - `wasm/simd/`: with pthreads (needs `SharedArrayBuffer`, so a cross-origin isolated
 *   page), several threads;
 * - `wasm/simd-st/` (issue 42): the same kernels without pthreads at all, one thread,
 *   for pages without `SharedArrayBuffer` (WebKit/Safari not isolated), where the threaded glue dies
 *   on its first `new SharedArrayBuffer` and wllama's stock fallback is Memory64, which WebKit lacks.
 *
 * Why: @wllama/wllama's shipped wasm is compiled with ggml's generic C kernels (emscripten's CMake
 * toolchain says `CMAKE_SYSTEM_PROCESSOR=x86` unless `-DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm` is passed,
 * so ggml never builds `ggml-cpu/arch/wasm/quants.c`). Here the same C++ glue (wllama's `cpp/`, from
 * its npm package, so wllama's own JS drives the result) is built with that flag.
 *
 * Sources, all from npm with pinned integrity (nothing fetched is committed):
 * - llama.cpp: node-llama-cpp's git bundle (the same source scripts/llama-server.mjs builds);
 * - wllama's glue `cpp/` and `CMakeLists.txt`: @wllama/wllama at the version intab runs;
 * - our patches: `scripts/wasm/wllama-glue.patch` (that llama.cpp has no `server-decision`, wllama's
 *   "systemone" decision models, unused by intab, so the glue drops it; emcc 3.1.6 names the stack
 *   setting `TOTAL_STACK`) and `scripts/wasm/ggml-q8_0-tile.patch` (prefill's Q8_0 matrix product
 *   as a 4×4 register tile on wasm SIMD128 instead of one dot product per row and column); the
 *   single-threaded build adds `scripts/wasm/wllama-no-pthreads.patch` (a `WLLAMA_PTHREADS` option
 *   over wllama's CMakeLists; OFF drops `-pthread`, `USE_PTHREADS` and the pool size).
 *   `scripts/wasm/ggml-q6_K-simd.patch` (issue 47: Q6_K's 6-bit unpack in SIMD registers) is in
 *   {@link PENDING_PATCHES}: checked by the kernel harness (scripts/build-kernel-test.mjs), not yet
 *   in a committed build.
 * Toolchain: Debian's emscripten (`apt-get install emscripten`, 3.1.6). It builds wllama's "compat"
 * flavour only (wasm32 + Asyncify, JS exceptions; no JSPI, no Memory64, no WebGPU), which wllama's JS
 * runs through its compat path.
 *
 * CI does not rebuild: the outputs are committed, and tests/unit/wllama/simd-manifest.test.ts checks
 * that each manifest matches this script's inputs (sources, flags, patches) and the committed files.
 * `npm ci && npm start` needs no emscripten.
 *
 * Build time on the shared 2-core machine: about 40 minutes a build (`INTAB_WASM_JOBS`, default 2).
 * Each build keeps its own folder under `INTAB_WASM_BUILD_DIR` (default ~/.cache/intab: `wasm-simd`,
 * `wasm-simd-st`; separate, since their flags differ for every object) so a rebuild is incremental.
 *
 * @example
 * NODE_PATH=/usr/share/nodejs node scripts/build-wasm.mjs            # both builds and manifests
 * NODE_PATH=/usr/share/nodejs node scripts/build-wasm.mjs simd-st    # only the named build(s)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SOURCE_INTEGRITY, SOURCE_PACKAGE, SOURCE_VERSION } from './llama-server.mjs';
import { emccVersion, run, stageSources } from './wasm-stage.mjs';
import { assertNoSharedMemory, sha256, stripNameSection, syncTree } from './wasm-util.mjs';

export { assertNoSharedMemory, sha256, stripNameSection, syncTree };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The one folder of build outputs (issue 47): every wasm build intab serves, its emscripten glue and
 * its manifest, one subfolder per build, out of `src/` (nothing there is hand-written; biome and
 * tsc never read it). The hand-written loaders in `src/` name these files by URL.
 */
export const WASM_DIR = join(ROOT, 'wasm');
/** Where the threaded build's outputs are committed (the engine worker points wllama there). */
export const OUT_DIR = join(WASM_DIR, 'simd');
/** Where the single-threaded build's outputs are committed (issue 42). */
export const ST_OUT_DIR = join(WASM_DIR, 'simd-st');
/**
 * Our patches over the staged sources, applied in this order (paths relative to the repository root):
 * the glue's fixes for this llama.cpp and emcc, then the Q8_0 register tile for prefill.
 */
export const PATCHES = ['scripts/wasm/wllama-glue.patch', 'scripts/wasm/ggml-q8_0-tile.patch'];
/** The single-threaded build's patches: the threaded ones, then the option that drops pthreads. */
export const ST_PATCHES = [...PATCHES, 'scripts/wasm/wllama-no-pthreads.patch'];
/**
 * ggml kernel patches that the kernel test harness (scripts/build-kernel-test.mjs → wasm/kernel-test/)
 * already compiles and checks against ggml's generic kernels, but that no committed build has yet:
 * a build takes about 40 minutes on the shared 2-core machine (issue 47). Rebuilding with them moves
 * them into {@link PATCHES}, where the manifests' digests cover them.
 */
export const PENDING_PATCHES = ['scripts/wasm/ggml-q6_K-simd.patch'];
/** Each patch (default: the threaded build's) with the sha256 of its bytes, as manifests record them. */
export const patchDigests = (patches = PATCHES) =>
  patches.map((file) => ({ file, sha256: sha256(readFileSync(join(ROOT, file))) }));

/** The npm packages the build reads, with the integrity npm must report for their tarballs. */
export const SOURCES = [
  { package: SOURCE_PACKAGE, version: SOURCE_VERSION, integrity: SOURCE_INTEGRITY, use: 'llama.cpp source' },
  {
    package: '@wllama/wllama',
    version: '3.8.1',
    integrity:
      'sha512-Pl7BEJhPU8OHnV/yhn3DFZYhLLOdSHh+4TND79WCftHnlUAdQPAsyc/CfIOY+4mVxvf5VW3Xw3Uf7BBfotS1gw==',
    use: 'glue cpp/ and CMakeLists.txt',
  },
];

/** The emscripten the outputs were built with (`emcc --version`, first line's version). */
export const EMCC_VERSION = '3.1.6';

/**
 * CMake flags: wllama's compat flavour, CPU only, and the one that matters,
 * `EMSCRIPTEN_SYSTEM_PROCESSOR=wasm` (ggml's "Wasm detected": arch/wasm SIMD kernels). clang-14
 * defaults to C++14, llama.cpp's common/ needs 17.
 */
export const CMAKE_FLAGS = [
  '-G',
  'Ninja',
  '-DCMAKE_BUILD_TYPE=Release',
  '-DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm',
  '-DWLLAMA_COMPAT=ON',
  '-DLLAMA_WASM_MEM64=OFF',
  '-DGGML_WEBGPU=OFF',
  '-DGGML_NATIVE=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_TOOLS=OFF',
  '-DLLAMA_BUILD_SERVER=OFF',
  '-DLLAMA_BUILD_COMMON=OFF',
  '-DLLAMA_BUILD_APP=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_CURL=OFF',
  '-DLLAMA_OPENSSL=OFF',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DCMAKE_CXX_STANDARD=17',
  '-DCMAKE_CXX_STANDARD_REQUIRED=ON',
];
/**
 * The single-threaded build's flags: the threaded ones plus `WLLAMA_PTHREADS=OFF`
 * (scripts/wasm/wllama-no-pthreads.patch), so nothing is compiled or linked with `-pthread`: plain
 * (unshared) wasm memory, no pthread workers, and ggml at n_threads=1 never calls pthread_create.
 */
export const ST_CMAKE_FLAGS = [...CMAKE_FLAGS, '-DWLLAMA_PTHREADS=OFF'];

/**
 * Fixes to the glue JS emcc 3.1.6 emits, applied as exact replacements (a build whose glue lacks the
 * text fails). One: with a pthread pool of 0 (wllama's single-thread mode) 3.1.6 never removes its
 * `wasm-instantiate` run dependency, so the runtime never starts (the count only drops per loaded
 * worker; later emscripten releases fixed this).
 */
export const GLUE_FIXES = [
  {
    find: 'var numWorkersToLoad = PThread.unusedWorkers.length;\n',
    replace:
      'var numWorkersToLoad = PThread.unusedWorkers.length;\n' +
      '   if (!numWorkersToLoad) removeRunDependency("wasm-instantiate"); // intab: pool of 0\n',
  },
];

/**
 * The single-threaded build's glue fix: without pthreads emcc 3.1.6 ignores `wasmMemory` in
 * `EXPORTED_RUNTIME_METHODS` (only its pthread runtime exports it), and wllama's worker reads the heap
 * through `Module.wasmMemory.buffer` ("Cannot read properties of null" on the first load).
 */
export const ST_GLUE_FIXES = [
  {
    find: 'Module["MEMFS"] = MEMFS;\n',
    replace:
      'Module["MEMFS"] = MEMFS;\n\nModule["wasmMemory"] = wasmMemory; // intab: wllama reads the heap here\n',
  },
];

/**
 * emcc 3.1.6 starts each pthread from a separate `wllama.worker.js`, which wllama's worker refuses to
 * locate (its own builds need none): the glue makes that worker from its text, inlined, instead.
 */
export const PTHREAD_WORKER_FIND = 'var pthreadMainJs = locateFile("wllama.worker.js");\n';
const pthreadWorkerFix = (workerJs) => ({
  find: PTHREAD_WORKER_FIND,
  replace: `var pthreadMainJs = URL.createObjectURL(new Blob([${JSON.stringify(workerJs)}], { type: "text/javascript" })); // intab\n`,
});

/**
 * `js` with `glueFixes` (default {@link GLUE_FIXES}) applied (and, given emcc's pthread worker,
 * that worker inlined); throws when a fix's text is not there exactly once.
 */
export function fixGlue(js, workerJs, glueFixes = GLUE_FIXES) {
  let out = js;
  const fixes = [...glueFixes, ...(workerJs === undefined ? [] : [pthreadWorkerFix(workerJs)])];
  for (const { find, replace } of fixes) {
    const at = out.indexOf(find);
    if (at < 0 || out.indexOf(find, at + 1) >= 0)
      throw new Error(`glue fix: ${JSON.stringify(find)} not found once`);
    out = out.slice(0, at) + replace + out.slice(at + find.length);
  }
  return out;
}

/** The files each build writes into its folder. */
export const OUTPUTS = ['wllama.wasm', 'wllama.js'];

/**
 * The builds, in the order the script runs them: name (the folder's), where the outputs go, the
 * build folder's name, flags, patches, glue fixes, and whether it has pthreads (then emcc also
 * emits `wllama.worker.js`, which {@link fixGlue} inlines).
 */
export const BUILDS = [
  {
    name: 'simd',
    outDir: OUT_DIR,
    workDir: 'wasm-simd',
    about: 'llama.cpp (wllama glue) built with ggml wasm SIMD kernels by scripts/build-wasm.mjs; do not edit',
    cmakeFlags: CMAKE_FLAGS,
    patches: PATCHES,
    glueFixes: GLUE_FIXES,
    pthreads: true,
  },
  {
    name: 'simd-st',
    outDir: ST_OUT_DIR,
    workDir: 'wasm-simd-st',
    about:
      'llama.cpp (wllama glue) built with ggml wasm SIMD kernels, single-threaded without pthreads ' +
      '(no SharedArrayBuffer), by scripts/build-wasm.mjs; do not edit',
    cmakeFlags: ST_CMAKE_FLAGS,
    patches: ST_PATCHES,
    glueFixes: ST_GLUE_FIXES,
    pthreads: false,
  },
];

/**
 * One digest of everything that decides a build's outputs (default: the threaded one's): sources,
 * toolchain, flags, patches and glue fixes. Its manifest records it; the unit test recomputes it, so
 * a changed input without a rebuild fails. The threaded build's keys are the ones it always had, so
 * its committed digest still holds.
 */
export function inputsDigest(build = BUILDS[0]) {
  const inputs = {
    sources: SOURCES.map(({ package: p, version, integrity }) => ({ package: p, version, integrity })),
    emcc: EMCC_VERSION,
    cmakeFlags: build.cmakeFlags,
    patches: patchDigests(build.patches),
    glueFixes: build.glueFixes,
    ...(build.pthreads ? { pthreadWorkerInlined: PTHREAD_WORKER_FIND } : { noSharedMemory: true }),
    wasmStripped: 'name section',
  };
  return sha256(JSON.stringify(inputs));
}

const log = (msg) => process.stderr.write(`[build-wasm] ${msg}\n`);

/** Runs one of {@link BUILDS}: stage, configure, compile, then writes its outputs and manifest. */
function buildOne(build, version, env) {
  const root = resolve(process.env.INTAB_WASM_BUILD_DIR ?? join(homedir(), '.cache/intab'));
  const work = join(root, build.workDir);
  const stage = join(work, 'stage');
  const tree = join(work, 'tree');
  const out = join(work, 'build');
  mkdirSync(work, { recursive: true });
  // The sources are unpacked afresh into `stage`, then synced into `tree` file by file: unchanged
  // files keep their mtime, so ninja rebuilds only what really changed.
  stageSources({ sources: SOURCES, patches: build.patches, label: build.name, root: ROOT, work, stage });
  log(`${build.name}: syncing the sources into ${tree}: ${syncTree(stage, tree)} files changed`);
  mkdirSync(out, { recursive: true });
  log(`${build.name}: configuring (emcmake cmake)`);
  run('emcmake', ['cmake', '-S', tree, '-B', out, ...build.cmakeFlags], { env });
  // A -pthread that slipped in (say through CMake's Threads package) would make the memory shared.
  if (
    !build.pthreads &&
    /(^|\s)-pthread\b|USE_PTHREADS/m.test(readFileSync(join(out, 'build.ninja'), 'utf8'))
  )
    throw new Error(`${build.name}: build.ninja still has -pthread`);
  const jobs = process.env.INTAB_WASM_JOBS ?? '2';
  log(`${build.name}: building wllama with -j ${jobs} (tens of minutes)`);
  run('ninja', ['-C', out, '-j', jobs, 'wllama'], { env });
  mkdirSync(build.outDir, { recursive: true });
  const outputs = {};
  for (const name of OUTPUTS) {
    const dst = join(build.outDir, name);
    if (name === 'wllama.js') {
      const glue = readFileSync(join(out, name), 'utf8');
      if (build.pthreads) {
        const worker = readFileSync(join(out, 'wllama.worker.js'), 'utf8');
        writeFileSync(dst, fixGlue(glue, worker, build.glueFixes));
      } else writeFileSync(dst, assertNoSharedMemory(fixGlue(glue, undefined, build.glueFixes)));
    } else writeFileSync(dst, stripNameSection(readFileSync(join(out, name))));
    const bytes = readFileSync(dst);
    outputs[name] = { sha256: sha256(bytes), bytes: bytes.length };
  }
  const manifest = {
    about: build.about,
    inputsSha256: inputsDigest(build),
    sources: SOURCES,
    emcc: version,
    cmakeFlags: build.cmakeFlags,
    patches: patchDigests(build.patches),
    outputs,
  };
  writeFileSync(join(build.outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log(`wrote ${build.outDir}: ${OUTPUTS.map((n) => `${n} ${outputs[n].bytes} B`).join(', ')}`);
}

/** Builds the builds named on the command line (default: all of {@link BUILDS}, in order). */
function main(names) {
  const env = { ...process.env, NODE_PATH: process.env.NODE_PATH ?? '/usr/share/nodejs' };
  const version = emccVersion();
  if (version !== EMCC_VERSION) throw new Error(`emcc ${version}: this build is pinned to ${EMCC_VERSION}`);
  const unknown = names.filter((n) => !BUILDS.some((b) => b.name === n));
  if (unknown.length) throw new Error(`unknown build ${unknown.join(', ')}: ${BUILDS.map((b) => b.name)}`);
  for (const build of BUILDS) {
    if (names.length && !names.includes(build.name)) continue;
    for (const file of build.patches) if (!existsSync(join(ROOT, file))) throw new Error(`missing ${file}`);
    const started = Date.now();
    buildOne(build, version, env);
    log(`${build.name}: done in ${Math.round((Date.now() - started) / 60000)} min`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
