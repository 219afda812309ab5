/**
 * The committed SIMD llama.cpp wasm (issue 34) is what scripts/build-wasm.mjs builds from its inputs:
 * the manifest's digest of sources, toolchain, flags and patch is recomputed here, so changing any
 * input without rebuilding fails; the committed files are the ones the manifest names; and the wasm
 * really holds ggml's SIMD dot-product kernels (the point of the build).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CMAKE_FLAGS,
  EMCC_VERSION,
  fixGlue,
  GLUE_FIXES,
  inputsDigest,
  OUT_DIR,
  OUTPUTS,
  PATCHES,
  PTHREAD_WORKER_FIND,
  patchDigests,
  SOURCES,
  sha256,
  stripNameSection,
  syncTree,
} from '../../../scripts/build-wasm.mjs';

const manifest = JSON.parse(readFileSync(join(OUT_DIR, 'manifest.json'), 'utf8'));

describe('the SIMD wasm manifest', () => {
  it("matches the build script's inputs (sources with integrity, emcc, flags, patch)", () => {
    expect(manifest.inputsSha256).toBe(inputsDigest());
    expect(manifest.sources).toEqual(SOURCES);
    expect(manifest.emcc).toBe(EMCC_VERSION);
    expect(manifest.cmakeFlags).toEqual(CMAKE_FLAGS);
    expect(manifest.patches).toEqual(patchDigests());
    // Every patch file in scripts/wasm/ is one the build applies (and so one the digest covers).
    const onDisk = readdirSync('scripts/wasm').filter((f) => f.endsWith('.patch'));
    expect(PATCHES.map((p) => p.replace('scripts/wasm/', '')).sort()).toEqual(onDisk.sort());
    for (const { file, sha256: digest } of manifest.patches)
      expect(sha256(readFileSync(file)), file).toBe(digest);
    // The flag the whole build is for: without it ggml compiles its generic kernels.
    expect(CMAKE_FLAGS).toContain('-DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm');
  });

  it('names the committed outputs by size and sha256', () => {
    expect(Object.keys(manifest.outputs).sort()).toEqual([...OUTPUTS].sort());
    for (const name of OUTPUTS) {
      const bytes = readFileSync(join(OUT_DIR, name));
      expect(manifest.outputs[name], name).toEqual({ sha256: sha256(bytes), bytes: bytes.length });
    }
  });

  it("builds against the wllama version intab runs (its JS drives the glue's exports)", () => {
    const installed = JSON.parse(readFileSync('node_modules/@wllama/wllama/package.json', 'utf8')).version;
    expect(SOURCES.find((s) => s.package === '@wllama/wllama')?.version).toBe(installed);
  });

  it("holds ggml's wasm SIMD kernels: i32x4.dot_i16x8_s, which the generic build never emits", () => {
    // Opcode 0xFD 0xBA 0x01 (LEB128 186). A byte scan also sees data; the generic build of this glue
    // (and wllama's stock wasm) has none in code, ggml's arch/wasm/quants.c has dozens.
    const count = (b: Buffer) => {
      let n = 0;
      for (let i = b.indexOf(0xfd); i >= 0 && i + 2 < b.length; i = b.indexOf(0xfd, i + 1))
        if (b[i + 1] === 0xba && b[i + 2] === 0x01) n++;
      return n;
    };
    const simd = count(readFileSync(join(OUT_DIR, 'wllama.wasm')));
    const stock = count(readFileSync('node_modules/@wllama/wllama/esm/wasm/wllama.wasm'));
    expect(simd).toBeGreaterThan(stock + 20);
  });

  it('holds the prefill Q8_0 tile (scripts/wasm/ggml-q8_0-tile.patch): its i16x8.extmul_low_i8x16_s', () => {
    // Opcode 0xFD 0x9C 0x01. The 16 tile shapes (1..4 rows × 1..4 columns) hold 37 of them; the
    // build without the tile held 1, wllama's stock wasm none.
    const count = (b: Buffer) => {
      let n = 0;
      for (let i = b.indexOf(0xfd); i >= 0 && i + 2 < b.length; i = b.indexOf(0xfd, i + 1))
        if (b[i + 1] === 0x9c && b[i + 2] === 0x01) n++;
      return n;
    };
    const simd = count(readFileSync(join(OUT_DIR, 'wllama.wasm')));
    const stock = count(readFileSync('node_modules/@wllama/wllama/esm/wasm/wllama.wasm'));
    expect(simd).toBeGreaterThan(stock + 20);
  });
});

describe('stripNameSection (the committed wasm carries no function names)', () => {
  // A module: magic + version, a type section, a custom "name" section, a custom "other" one.
  const section = (id: number, body: number[]) => [id, body.length, ...body];
  const custom = (name: string, body: number[]) =>
    section(0, [name.length, ...Buffer.from(name, 'latin1'), ...body]);
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const types = section(1, [0x01, 0x60, 0x00, 0x00]);

  it('drops the name section and keeps every other section byte for byte', () => {
    const wasm = Buffer.from([...header, ...types, ...custom('name', [1, 2, 3]), ...custom('other', [4])]);
    const out = stripNameSection(wasm);
    expect([...out]).toEqual([...header, ...types, ...custom('other', [4])]);
    expect(() => new WebAssembly.Module(new Uint8Array(out))).not.toThrow();
  });

  it('refuses what is not a whole wasm module', () => {
    expect(() => stripNameSection(Buffer.from('not wasm'))).toThrow(/magic/);
    expect(() => stripNameSection(Buffer.from([...header, 1, 9, 0x01]))).toThrow(/past the end/);
  });

  it('left no name section in the committed wasm', () => {
    const wasm = readFileSync(join(OUT_DIR, 'wllama.wasm'));
    expect(stripNameSection(wasm).length).toBe(wasm.length);
  });
});

describe("the glue's fixes", () => {
  it('are in the committed glue, and a glue without their text is refused', () => {
    const glue = readFileSync(join(OUT_DIR, 'wllama.js'), 'utf8');
    // emcc 3.1.6 with a pthread pool of 0 never started its runtime (the e2e load hung before the fix).
    for (const { replace } of GLUE_FIXES) expect(glue).toContain(replace);
    // Its pthreads start from the inlined worker, not a wllama.worker.js wllama's worker would not locate.
    expect(glue).not.toContain(PTHREAD_WORKER_FIND);
    expect(glue).toContain('var pthreadMainJs = URL.createObjectURL(new Blob([');
    expect(() => fixGlue('var Module = {};')).toThrow(/not found once/);
    const raw = `x;\n${GLUE_FIXES[0]?.find}y;`;
    expect(fixGlue(raw)).toContain('removeRunDependency("wasm-instantiate")');
  });
});

describe('syncTree (the incremental source sync)', () => {
  it('writes only changed files, adds new ones and removes stale ones', () => {
    const root = mkdtempSync(join(tmpdir(), 'intab-sync-'));
    const from = join(root, 'from');
    const to = join(root, 'to');
    mkdirSync(join(from, 'd'), { recursive: true });
    writeFileSync(join(from, 'same.c'), 'x');
    writeFileSync(join(from, 'd/new.c'), 'n');
    writeFileSync(join(from, 'changed.c'), 'new');
    mkdirSync(to);
    writeFileSync(join(to, 'same.c'), 'x');
    writeFileSync(join(to, 'changed.c'), 'old');
    writeFileSync(join(to, 'stale.c'), 's');
    const before = statSync(join(to, 'same.c')).mtimeMs;
    expect(syncTree(from, to)).toBe(3);
    expect(readFileSync(join(to, 'changed.c'), 'utf8')).toBe('new');
    expect(readFileSync(join(to, 'd/new.c'), 'utf8')).toBe('n');
    expect(() => statSync(join(to, 'stale.c'))).toThrow();
    expect(statSync(join(to, 'same.c')).mtimeMs).toBe(before);
    expect(syncTree(from, to)).toBe(0);
  });
});
