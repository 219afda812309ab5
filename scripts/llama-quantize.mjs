#!/usr/bin/env node
/**
 * llama.cpp's own `llama-quantize` (issue 47), built from the same npm source as llama-server
 * (scripts/llama-server.mjs keeps that source beside its binary, `<dir>/src`) with the same CMake
 * flags, into that same cache folder; and the bench model quantized with it from its F16 variant
 * (`bench-f16`), so the bench measures the files people download (Q4_K_M, Q4_0, Q6_K) made the way
 * they are made, never requantized from Q8_0.
 *
 * Build time: about 7 minutes at nice 10 on the shared 2-core machine (one target, its libraries).
 * Each quantized file is cached in .cache/models/ beside its JSON (the F16 file's sha256, the type,
 * the binary's sha256); a changed input requantizes.
 *
 * @example
 * node scripts/llama-quantize.mjs Q4_K_M Q6_K   # prints each quantized file's path
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureTestModel, MODELS_DIR } from './build-test-gguf.mjs';
import { CMAKE_FLAGS, ensureLlamaServer } from './llama-server.mjs';

/** The types the bench measures (llama-quantize's names), the catalog's default first. */
export const QUANT_TYPES = ['Q4_K_M', 'Q4_0', 'Q6_K'];
/** Bound on one build of the target (measured ~7 min under load; a hang fails, not waits). */
const BUILD_TIMEOUT_MS = 40 * 60_000;
/** Bound on quantizing the ~93M model once (seconds when idle). */
const QUANTIZE_TIMEOUT_MS = 10 * 60_000;

const log = (msg) => process.stderr.write(`[llama-quantize] ${msg}\n`);
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function run(cmd, args, timeout) {
  const r = spawnSync(cmd, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout,
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${(r.stderr + r.stdout).slice(-4000)}`,
    );
  return r.stdout;
}

/** The quantized file's name for `type` under {@link MODELS_DIR}. */
export const quantFile = (type) => `intab-bench-${type.toLowerCase()}.gguf`;

/**
 * Returns the `llama-quantize` binary beside the cached llama-server (building llama-server first
 * when there is none, since its folder keeps the source), building it once when missing.
 */
export async function ensureLlamaQuantize() {
  const server = await ensureLlamaServer();
  const bin = join(server.dir, 'llama-quantize');
  if (existsSync(bin)) return { bin, built: false };
  const work = mkdtempSync(join(tmpdir(), 'intab-quantize-'));
  try {
    log(`configuring ${server.srcDir}`);
    run('cmake', ['-S', server.srcDir, '-B', work, ...CMAKE_FLAGS], BUILD_TIMEOUT_MS);
    const jobs = process.env.INTAB_LLAMA_JOBS ?? '2';
    log(`building llama-quantize with -j ${jobs} (minutes)`);
    run('cmake', ['--build', work, '--target', 'llama-quantize', '-j', jobs], BUILD_TIMEOUT_MS);
    // Another process may have finished the same build meanwhile: either binary is the same.
    if (!existsSync(bin)) renameSync(join(work, 'bin/llama-quantize'), bin);
    return { bin, built: true };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The bench model in `type`, quantized by llama-quantize from `bench-f16` (cached; requantized when
 * the F16 file or the binary changed).
 *
 * @example
 * const { path } = await ensureQuantized('Q4_K_M');
 */
export async function ensureQuantized(type) {
  if (!QUANT_TYPES.includes(type)) throw new Error(`unknown type ${type}; one of ${QUANT_TYPES.join(', ')}`);
  const f16 = await ensureTestModel('bench-f16');
  const { bin } = await ensureLlamaQuantize();
  const path = resolve(MODELS_DIR, quantFile(type));
  const inputs = { from: f16.manifest.sha256, type, quantize: sha256(readFileSync(bin)) };
  const manifestPath = `${path}.json`;
  if (existsSync(path) && existsSync(manifestPath)) {
    const cached = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (JSON.stringify(cached.inputs) === JSON.stringify(inputs)) return { path, built: false };
  }
  const partial = `${path}.partial-${process.pid}`;
  log(`quantizing ${f16.path} to ${type}`);
  run(bin, [f16.path, partial, type], QUANTIZE_TIMEOUT_MS);
  renameSync(partial, path);
  const bytes = readFileSync(path);
  writeFileSync(
    manifestPath,
    `${JSON.stringify({ inputs, sha256: sha256(bytes), bytes: bytes.length }, null, 2)}\n`,
  );
  return { path, built: true };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const types = process.argv.slice(2);
  for (const type of types.length ? types : QUANT_TYPES)
    process.stdout.write(`${(await ensureQuantized(type)).path}\n`);
}
