#!/usr/bin/env node
/**
 * Builds the kernel test harness (issue 47): ggml's wasm SIMD kernels exactly as scripts/wasm's
 * patches leave them, and ggml's generic C kernels, compiled side by side from the same staged
 * llama.cpp as the served builds into one small standalone module, `wasm/kernel-test/kernels.wasm`
 * (no imports), with its manifest. tests/unit/wllama/ggml-kernels.test.ts feeds both kernels the same
 * blocks in Node (which runs wasm SIMD): integer sums bit for bit, floats to rounding.
 *
 * Why a harness: the kernels are internal to the served builds (no export reaches them), and a
 * served build takes about 40 minutes to rebuild; the harness takes seconds, and CI reruns its test
 * without emscripten. The manifest test there recomputes {@link kernelTestDigest}, so a changed
 * patch, harness or flag without a rebuild fails.
 *
 * @example
 * node scripts/build-kernel-test.mjs   # needs Debian's emscripten 3.1.6 and npm
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EMCC_VERSION, PATCHES, PENDING_PATCHES, patchDigests, SOURCES, WASM_DIR } from './build-wasm.mjs';
import { emccVersion, run, stageSources } from './wasm-stage.mjs';
import { sha256, stripNameSection } from './wasm-util.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the harness and its manifest are committed. */
export const KERNEL_TEST_DIR = join(WASM_DIR, 'kernel-test');
/** The harness's own C: exports both kernels of each type, plus the fp16 table ggml-cpu.c would fill. */
export const KERNEL_TEST_SOURCE = 'scripts/wasm/kernel-test.c';
/** Every ggml patch the builds have, then those waiting for a rebuild ({@link PENDING_PATCHES}). */
export const KERNEL_TEST_PATCHES = [...PATCHES, ...PENDING_PATCHES];
/** ggml's files compiled beside the harness (in the stage): the wasm kernels, then the generic ones. */
export const KERNEL_TEST_UNITS = [
  'llama.cpp/ggml/src/ggml-cpu/arch/wasm/quants.c',
  'llama.cpp/ggml/src/ggml-cpu/quants.c',
];
/** emcc flags: the served builds' optimisation and SIMD; a standalone module with only its exports. */
export const KERNEL_TEST_FLAGS = ['-O3', '-msimd128', '-DNDEBUG', '-sSTANDALONE_WASM', '--no-entry'];
/** The exports the test calls (besides `memory`). */
export const KERNEL_TEST_EXPORTS = ['init', 'alloc', 'q6_K_wasm', 'q6_K_generic'];

/** One digest of everything that decides the harness: sources, emcc, flags, units, patches, its C. */
export function kernelTestDigest() {
  return sha256(
    JSON.stringify({
      sources: SOURCES.map(({ package: p, version, integrity }) => ({ package: p, version, integrity })),
      emcc: EMCC_VERSION,
      flags: KERNEL_TEST_FLAGS,
      units: KERNEL_TEST_UNITS,
      patches: patchDigests(KERNEL_TEST_PATCHES),
      harness: sha256(readFileSync(join(ROOT, KERNEL_TEST_SOURCE))),
      wasmStripped: 'name section',
    }),
  );
}

function main() {
  const version = emccVersion();
  if (version !== EMCC_VERSION) throw new Error(`emcc ${version}: this build is pinned to ${EMCC_VERSION}`);
  const work = join(
    resolve(process.env.INTAB_WASM_BUILD_DIR ?? join(homedir(), '.cache/intab')),
    'wasm-kernel-test',
  );
  const stage = join(work, 'stage');
  mkdirSync(work, { recursive: true });
  stageSources({
    sources: SOURCES,
    patches: KERNEL_TEST_PATCHES,
    label: 'kernel-test',
    root: ROOT,
    work,
    stage,
  });
  const ggml = join(stage, 'llama.cpp/ggml');
  const out = join(work, 'kernels.wasm');
  run('emcc', [
    ...KERNEL_TEST_FLAGS,
    ...['include', 'src', 'src/ggml-cpu'].map((d) => `-I${join(ggml, d)}`),
    join(ROOT, KERNEL_TEST_SOURCE),
    ...KERNEL_TEST_UNITS.map((u) => join(stage, u)),
    '-o',
    out,
  ]);
  mkdirSync(KERNEL_TEST_DIR, { recursive: true });
  const wasm = stripNameSection(readFileSync(out));
  writeFileSync(join(KERNEL_TEST_DIR, 'kernels.wasm'), wasm);
  const manifest = {
    about:
      "ggml's wasm kernels (as patched) beside its generic ones, for tests/unit/wllama/ggml-kernels.test.ts; built by scripts/build-kernel-test.mjs; do not edit",
    inputsSha256: kernelTestDigest(),
    sources: SOURCES,
    emcc: version,
    flags: KERNEL_TEST_FLAGS,
    units: KERNEL_TEST_UNITS,
    harness: { file: KERNEL_TEST_SOURCE, sha256: sha256(readFileSync(join(ROOT, KERNEL_TEST_SOURCE))) },
    patches: patchDigests(KERNEL_TEST_PATCHES),
    outputs: { 'kernels.wasm': { sha256: sha256(wasm), bytes: wasm.length } },
  };
  writeFileSync(join(KERNEL_TEST_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stderr.write(`[build-kernel-test] wrote ${KERNEL_TEST_DIR}: kernels.wasm ${wasm.length} B\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
