#!/usr/bin/env node
/**
 * Builds llama.cpp's `llama-server` from source taken from npm, for the remote engine's tests and
 * bench: a real OpenAI-compatible server that runs the project's test GGUF.
 *
 * npm carries llama.cpp's full source: `node-llama-cpp` ships it as a git bundle
 * (`llama/gitRelease.bundle`). This script fetches that package's tarball with `npm pack` (nothing
 * installed), checks the tarball against its pinned integrity, clones the bundle and builds the one
 * target with CMake + Ninja. Build time on a 2-core machine: about 5 minutes idle; 26.5 minutes measured at a load average of 10.
 *
 * The result is cached OUTSIDE the repository, keyed by the bundle's hash:
 * `~/.cache/intab/llama-server-<sha256 of the bundle, 16 hex>/` holds `llama-server` and `src/` (the
 * clone; tests read `src/models/templates/…` from it). A pointer file
 * `~/.cache/intab/llama-server-node-llama-cpp-<version>.json` names that folder, so a warm machine
 * finds the binary without fetching anything. Nothing fetched is ever written into the repository.
 *
 * On a fresh machine (CI runs `.ci/run` as root) the build tools are installed with apt when missing.
 *
 * @example
 * node scripts/llama-server.mjs          # prints the binary's path (building it when missing)
 * // from code (vitest globalSetup, the bench):
 * const { bin, srcDir } = await ensureLlamaServer();
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The npm package whose tarball carries llama.cpp's source (llama.cpp b-release bundled by node-llama-cpp). */
export const SOURCE_PACKAGE = 'node-llama-cpp';
/** Pinned version of {@link SOURCE_PACKAGE}. */
export const SOURCE_VERSION = '3.22.1';
/** npm's integrity for that tarball: a different tarball is refused. */
export const SOURCE_INTEGRITY =
  'sha512-bltIipuWmc123H7tMIgDGKSsSrhmhlQYeVUC48XTjVW7XGJJiJJyCdlTMzQ/LiWoPkGDpcL4FviDpgw7qfTiDw==';
/** The Hermes 3 tool-use chat template inside llama.cpp's source: deterministic tool calls from a random model. */
export const HERMES_TOOL_TEMPLATE = 'models/templates/NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja';

/** CMake flags: a static server only; `LLAMA_USE_PREBUILT_UI=OFF` because its default downloads a web UI. */
export const CMAKE_FLAGS = [
  '-G',
  'Ninja',
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_OPENSSL=OFF',
  '-DLLAMA_CURL=OFF',
];

/** Where built servers are kept (outside any checkout, so clones and CI's temp clones share them). */
export const CACHE_DIR = resolve(process.env.INTAB_LLAMA_CACHE ?? join(homedir(), '.cache/intab'));
const POINTER = join(CACHE_DIR, `llama-server-${SOURCE_PACKAGE}-${SOURCE_VERSION}.json`);

const log = (msg) => process.stderr.write(`[llama-server] ${msg}\n`);

/**
 * Runs a command with its output in `logFile` (a compiler's warnings run to megabytes: a pipe's
 * buffer would overflow); throws with the log's tail on failure.
 */
function run(cmd, args, opts = {}) {
  // Inside the build's own temporary folder, which goes with it.
  const logFile = join(opts.cwd ?? buildDir, 'command.log');
  const fd = openSync(logFile, 'w');
  try {
    const r = spawnSync(cmd, args, {
      stdio: ['ignore', opts.capture ? 'pipe' : fd, fd],
      encoding: 'utf8',
      ...opts,
    });
    if (r.status !== 0) {
      const tail = readFileSync(logFile, 'utf8').slice(-4000);
      throw new Error(
        `${cmd} ${args.join(' ')} failed (${r.status ?? r.signal ?? r.error?.message}):\n${tail}`,
      );
    }
    return r.stdout ?? '';
  } finally {
    closeSync(fd);
  }
}

/** The running build's temporary folder (command logs go there). */
let buildDir = tmpdir();

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Installs cmake, ninja, g++ and git with apt when any is missing (as `.ci/run` does for Chromium). */
function ensureBuildTools() {
  const missing = [
    ['cmake', 'cmake'],
    ['ninja', 'ninja-build'],
    ['g++', 'g++'],
    ['git', 'git'],
  ].filter(([cmd]) => !has(cmd));
  if (missing.length === 0) return;
  const pkgs = missing.map(([, pkg]) => pkg);
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !has('apt-get'))
    throw new Error(
      `llama-server build needs ${pkgs.join(', ')}: install them (apt-get install -y ${pkgs.join(' ')})`,
    );
  log(`installing ${pkgs.join(' ')} with apt`);
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', ...pkgs], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

function sha256File(path) {
  return new Promise((ok, fail) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (d) => h.update(d))
      .on('error', fail)
      .on('end', () => ok(h.digest('hex')));
  });
}

/** The cached build, when the pointer names a folder whose binary and template are there. */
function cached() {
  if (!existsSync(POINTER)) return undefined;
  try {
    const { dir } = JSON.parse(readFileSync(POINTER, 'utf8'));
    const found = paths(dir);
    if (existsSync(found.bin) && existsSync(found.template)) return found;
  } catch {}
  return undefined;
}

function paths(dir) {
  const srcDir = join(dir, 'src');
  return { dir, bin: join(dir, 'llama-server'), srcDir, template: join(srcDir, HERMES_TOOL_TEMPLATE) };
}

/**
 * Returns the built `llama-server` (building it first when this machine has none for the pinned
 * source). `built` says whether this call built it, `buildMs` how long that took.
 * @returns {Promise<{bin: string, srcDir: string, template: string, dir: string, built: boolean, buildMs: number}>}
 */
export async function ensureLlamaServer() {
  const hit = cached();
  if (hit) return { ...hit, built: false, buildMs: 0 };
  mkdirSync(CACHE_DIR, { recursive: true });
  // One build per machine: test files that start together wait for the first one's build.
  const deadline = Date.now() + BUILD_WAIT_MS;
  while (!takeLock()) {
    if (Date.now() > deadline)
      throw new Error(`llama-server: another build held ${LOCK} for ${BUILD_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 2_000));
    const done = cached();
    if (done) return { ...done, built: false, buildMs: 0 };
  }
  try {
    return await build();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Bound on waiting for another process's build (26.5 min measured on a 2-core machine at load 10). */
const BUILD_WAIT_MS = 45 * 60_000;
const LOCK = join(CACHE_DIR, `llama-server-${SOURCE_VERSION}.lock`);

/** Takes the build lock; a lock whose holder died is taken over. */
function takeLock() {
  try {
    mkdirSync(LOCK);
    writeFileSync(join(LOCK, 'pid'), String(process.pid));
    return true;
  } catch {
    let pid = 0;
    try {
      pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
      process.kill(pid, 0);
      return false;
    } catch (err) {
      // No pid file yet (the holder is between mkdir and write) or a live holder: wait.
      if (!pid || err?.code === 'EPERM') return false;
      rmSync(LOCK, { recursive: true, force: true });
      return false;
    }
  }
}

async function build() {
  const t0 = Date.now();
  mkdirSync(CACHE_DIR, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'intab-llama-'));
  buildDir = work;
  try {
    ensureBuildTools();
    log(`fetching ${SOURCE_PACKAGE}@${SOURCE_VERSION} from npm`);
    const packed = JSON.parse(
      run('npm', ['pack', `${SOURCE_PACKAGE}@${SOURCE_VERSION}`, '--json', '--silent'], {
        cwd: work,
        capture: true,
      }),
    );
    const { filename, integrity } = packed[0];
    if (integrity !== SOURCE_INTEGRITY)
      throw new Error(`${filename}: integrity ${integrity}, expected ${SOURCE_INTEGRITY}`);
    run('tar', ['-xzf', filename, 'package/llama/gitRelease.bundle'], { cwd: work });
    const bundle = join(work, 'package/llama/gitRelease.bundle');
    const hash = (await sha256File(bundle)).slice(0, 16);
    const final = paths(join(CACHE_DIR, `llama-server-${hash}`));
    if (!(existsSync(final.bin) && existsSync(final.template))) {
      const stage = join(work, 'stage');
      mkdirSync(stage);
      log(`cloning the bundle (sha256 ${hash})`);
      run('git', ['clone', '--quiet', bundle, join(stage, 'src')]);
      const build = join(work, 'build');
      log('configuring');
      run('cmake', ['-S', join(stage, 'src'), '-B', build, ...CMAKE_FLAGS]);
      const jobs = process.env.INTAB_LLAMA_JOBS ?? '2';
      log(`building llama-server with -j ${jobs} (minutes)`);
      run('cmake', ['--build', build, '--target', 'llama-server', '-j', jobs]);
      renameSync(join(build, 'bin/llama-server'), join(stage, 'llama-server'));
      rmSync(join(stage, 'src/.git'), { recursive: true, force: true });
      // Another process may have finished the same build meanwhile: theirs wins, ours is dropped.
      if (!existsSync(final.dir)) renameSync(stage, final.dir);
    }
    const buildMs = Date.now() - t0;
    writeFileSync(
      POINTER,
      JSON.stringify({ dir: final.dir, bundleSha256: hash, buildMs, builtAt: new Date().toISOString() }),
    );
    log(`ready: ${final.bin} (${(buildMs / 1000).toFixed(0)} s)`);
    return { ...final, built: true, buildMs };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The build flags' list and the cache folders present (for diagnostics). */
export function cachedBuilds() {
  return existsSync(CACHE_DIR) ? readdirSync(CACHE_DIR).filter((n) => n.startsWith('llama-server-')) : [];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { bin } = await ensureLlamaServer();
  process.stdout.write(`${bin}\n`);
}
