/**
 * Byte-level helpers of scripts/build-wasm.mjs (which re-exports them): the sha256 its manifests
 * record, the wasm name-section strip, the incremental source sync and the single-threaded glue's
 * shared-memory check. Split out so the build script stays about its builds.
 *
 * @example
 * import { sha256 } from './wasm-util.mjs';
 * sha256('abc'); // 'ba7816bf…'
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The hex sha256 of `bytes`, as the manifests record outputs and patches.
 *
 * @example
 * sha256(readFileSync('wasm/simd/wllama.wasm'));
 */
export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

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
 *
 * @example
 * writeFileSync(out, stripNameSection(readFileSync(join(build, 'wllama.wasm'))));
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

/**
 * Makes `to` hold exactly `from`'s files, writing only those whose bytes differ (linear in the tree's
 * size: one read of each file on both sides). Returns how many files were written or removed.
 *
 * @example
 * syncTree(stage, tree); // 0 when nothing changed since the last build
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

/**
 * Throws when the glue could touch shared memory: the single-threaded build is for pages where
 * `SharedArrayBuffer` is not even defined, so one mention of it there is a `ReferenceError` waiting.
 * Returns `js` as it is.
 *
 * @example
 * writeFileSync(out, assertNoSharedMemory(glue));
 */
export function assertNoSharedMemory(js) {
  for (const word of ['SharedArrayBuffer', 'Atomics.', 'shared: true'])
    if (js.includes(word)) throw new Error(`single-threaded glue mentions ${word}`);
  return js;
}
