/**
 * Staging of the wasm builds' sources, shared by scripts/build-wasm.mjs (the served builds) and
 * scripts/build-kernel-test.mjs (the kernel test harness, issue 47), so both compile the very same
 * patched llama.cpp: each source `npm pack`ed with its pinned integrity, unpacked afresh, then the
 * patches applied in order. Nothing fetched is committed.
 *
 * @example
 * stageSources({ sources: SOURCES, patches: PATCHES, label: 'simd', root: ROOT, work, stage });
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const log = (msg) => process.stderr.write(`[wasm-stage] ${msg}\n`);

/** Runs `cmd` and returns its stdout; throws with the tail of its output when it fails. */
export function run(cmd, args, opts = {}) {
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

/** The installed emcc's version (`emcc --version`, first line's). */
export function emccVersion() {
  const first = run('emcc', ['--version']).split('\n')[0] ?? '';
  return /\b(\d+\.\d+\.\d+)\b/.exec(first)?.[1] ?? first;
}

/**
 * Unpacks `sources` (llama.cpp's bundle package, then wllama's) into a fresh `stage` (wllama's
 * `cpp/` and CMakeLists.txt at its root, llama.cpp in `stage/llama.cpp`) and applies `patches`
 * (paths relative to `root`) there, in order.
 */
export function stageSources({ sources, patches, label, root, work, stage }) {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const [llamaSrc, wllamaSrc] = sources;
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
  for (const file of patches) {
    log(`${label}: applying ${file}`);
    run('patch', ['-p1', '-i', join(root, file)], { cwd: stage });
  }
}
