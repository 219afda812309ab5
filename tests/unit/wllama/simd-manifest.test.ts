/**
 * The committed SIMD llama.cpp wasm builds (issues 34, 42) are what scripts/build-wasm.mjs builds from
 * its inputs: each manifest's digest of sources, toolchain, flags and patches is recomputed here, so
 * changing any input without rebuilding fails; the committed files are the ones each manifest names;
 * the wasm really holds ggml's SIMD dot-product kernels (the point of the builds); and the
 * single-threaded build's glue has no shared memory at all (the point of that one).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KERNEL_TEST_DIR } from '../../../scripts/build-kernel-test.mjs';
import {
  assertNoSharedMemory,
  BUILDS,
  CMAKE_FLAGS,
  EMCC_VERSION,
  fixGlue,
  GLUE_FIXES,
  inputsDigest,
  OUT_DIR,
  OUTPUTS,
  PATCHES,
  PENDING_PATCHES,
  PTHREAD_WORKER_FIND,
  patchDigests,
  SOURCES,
  ST_CMAKE_FLAGS,
  ST_GLUE_FIXES,
  ST_OUT_DIR,
  ST_PATCHES,
  sha256,
  stripNameSection,
  syncTree,
  WASM_DIR,
} from '../../../scripts/build-wasm.mjs';

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const stockWasm = () => readFileSync('node_modules/@wllama/wllama/esm/wasm/wllama.wasm');
/** How often the 3-byte SIMD opcode `op` occurs (a byte scan: data counts too, hence the margins below). */
const opcodes = (b: Buffer, op: [number, number, number]) => {
  let n = 0;
  for (let i = b.indexOf(op[0]); i >= 0 && i + 2 < b.length; i = b.indexOf(op[0], i + 1))
    if (b[i + 1] === op[1] && b[i + 2] === op[2]) n++;
  return n;
};

describe('the builds', () => {
  it('are the threaded one, then the single-threaded one with its extra patch and flag', () => {
    expect(BUILDS.map((b) => [b.name, b.outDir, b.pthreads])).toEqual([
      ['simd', OUT_DIR, true],
      ['simd-st', ST_OUT_DIR, false],
    ]);
    expect(ST_PATCHES).toEqual([...PATCHES, 'scripts/wasm/wllama-no-pthreads.patch']);
    expect(ST_CMAKE_FLAGS).toEqual([...CMAKE_FLAGS, '-DWLLAMA_PTHREADS=OFF']);
    // Separate build folders: every object differs by its flags.
    expect(new Set(BUILDS.map((b) => b.workDir)).size).toBe(BUILDS.length);
  });

  it('apply every patch in scripts/wasm/ but those pending a rebuild (so some digest covers each)', () => {
    const onDisk = readdirSync('scripts/wasm').filter((f) => f.endsWith('.patch'));
    const applied = new Set(
      [...BUILDS.flatMap((b) => b.patches), ...PENDING_PATCHES].map((p: string) =>
        p.replace('scripts/wasm/', ''),
      ),
    );
    expect([...applied].sort()).toEqual(onDisk.sort());
    // A pending patch is in no build yet (the kernel harness's digest covers it: ggml-kernels.test.ts).
    for (const p of PENDING_PATCHES) expect(BUILDS.some((b) => b.patches.includes(p))).toBe(false);
  });

  it("build against the wllama version intab runs (its JS drives the glue's exports)", () => {
    const installed = JSON.parse(readFileSync('node_modules/@wllama/wllama/package.json', 'utf8')).version;
    expect(SOURCES.find((s) => s.package === '@wllama/wllama')?.version).toBe(installed);
  });
});

/** Every file under `dir`, as paths relative to the repository root. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );

describe('the folder of build outputs, wasm/ (issue 47)', () => {
  it('holds exactly the builds the script makes and the kernel harness, each with its manifest', () => {
    expect(BUILDS.every((b) => relative(WASM_DIR, b.outDir) === b.name)).toBe(true);
    const expected = [
      ...BUILDS.flatMap((b) => [...OUTPUTS, 'manifest.json'].map((f) => join(b.outDir, f))),
      ...['kernels.wasm', 'manifest.json'].map((f) => join(KERNEL_TEST_DIR, f)),
    ];
    expect(filesUnder(WASM_DIR).sort()).toEqual(expected.sort());
  });

  it('leaves src/ hand-written: TypeScript and CSS only, so no wasm, glue JS or manifest there', () => {
    const src = join(WASM_DIR, '../src');
    const other = filesUnder(src).filter((f) => !/\.(tsx?|css)$/.test(f));
    expect(other.map((f) => relative(src, f))).toEqual([]);
  });

  it("is what the engine worker loads: each build's wasm and glue by a URL into wasm/", () => {
    const worker = readFileSync(join(WASM_DIR, '../src/worker/engine-worker.ts'), 'utf8');
    for (const b of BUILDS)
      for (const f of OUTPUTS)
        expect(worker).toContain(`new URL('../../wasm/${b.name}/${f}', import.meta.url)`);
  });
});

describe.each(BUILDS.map((b) => [b.name, b] as const))('the %s manifest', (_name, build) => {
  const manifest = manifestOf(build.outDir);

  it("matches the build script's inputs (sources with integrity, emcc, flags, patches)", () => {
    expect(manifest.inputsSha256).toBe(inputsDigest(build));
    expect(manifest.about).toBe(build.about);
    expect(manifest.sources).toEqual(SOURCES);
    expect(manifest.emcc).toBe(EMCC_VERSION);
    expect(manifest.cmakeFlags).toEqual(build.cmakeFlags);
    expect(manifest.patches).toEqual(patchDigests(build.patches));
    for (const { file, sha256: digest } of manifest.patches)
      expect(sha256(readFileSync(file)), file).toBe(digest);
    // The flag the whole build is for: without it ggml compiles its generic kernels.
    expect(build.cmakeFlags).toContain('-DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm');
  });

  it('names the committed outputs by size and sha256', () => {
    expect(Object.keys(manifest.outputs).sort()).toEqual([...OUTPUTS].sort());
    for (const name of OUTPUTS) {
      const bytes = readFileSync(join(build.outDir, name));
      expect(manifest.outputs[name], name).toEqual({ sha256: sha256(bytes), bytes: bytes.length });
    }
  });

  it("holds ggml's wasm SIMD kernels: i32x4.dot_i16x8_s, which the generic build never emits", () => {
    // Opcode 0xFD 0xBA 0x01 (LEB128 186). The generic build of this glue (and wllama's stock wasm)
    // has none in code, ggml's arch/wasm/quants.c has dozens.
    const simd = opcodes(readFileSync(join(build.outDir, 'wllama.wasm')), [0xfd, 0xba, 0x01]);
    expect(simd).toBeGreaterThan(opcodes(stockWasm(), [0xfd, 0xba, 0x01]) + 20);
  });

  it('holds the prefill Q8_0 tile (scripts/wasm/ggml-q8_0-tile.patch): its i16x8.extmul_low_i8x16_s', () => {
    // Opcode 0xFD 0x9C 0x01. The 16 tile shapes (1..4 rows × 1..4 columns) hold 37 of them; the
    // build without the tile held 1, wllama's stock wasm none.
    const simd = opcodes(readFileSync(join(build.outDir, 'wllama.wasm')), [0xfd, 0x9c, 0x01]);
    expect(simd).toBeGreaterThan(opcodes(stockWasm(), [0xfd, 0x9c, 0x01]) + 20);
  });

  it('left no name section in the committed wasm', () => {
    const wasm = readFileSync(join(build.outDir, 'wllama.wasm'));
    expect(stripNameSection(wasm).length).toBe(wasm.length);
  });
});

describe('the single-threaded build (issue 42)', () => {
  const glue = readFileSync(join(ST_OUT_DIR, 'wllama.js'), 'utf8');
  const wasm = readFileSync(join(ST_OUT_DIR, 'wllama.wasm'));

  it('has no shared memory in its glue: no SharedArrayBuffer, no Atomics, no pthread workers', () => {
    expect(() => assertNoSharedMemory(glue)).not.toThrow();
    expect(glue).not.toMatch(/SharedArrayBuffer|Atomics\.|PThread|pthreadPoolSize|wllama\.worker\.js/);
    expect(() => assertNoSharedMemory('new SharedArrayBuffer(1)')).toThrow(/SharedArrayBuffer/);
  });

  it("exports its memory to wllama's worker (ST_GLUE_FIXES: emcc 3.1.6 only does so with pthreads)", () => {
    for (const { replace } of ST_GLUE_FIXES) expect(glue).toContain(replace);
    expect(glue).toContain('Module["wasmMemory"] = wasmMemory;');
    expect(fixGlue('a;\nModule["MEMFS"] = MEMFS;\nb;', undefined, ST_GLUE_FIXES)).toContain(
      'Module["wasmMemory"] = wasmMemory;',
    );
  });

  it('imports an unshared memory: its import entry has no shared flag', () => {
    const memories = WebAssembly.Module.imports(new WebAssembly.Module(new Uint8Array(wasm))).filter(
      (i) => i.kind === 'memory',
    );
    expect(memories).toHaveLength(1);
    // The threaded build's memory import is shared (limits flag 3); this one's is not (flag 0 or 1).
    const threaded = readFileSync(join(OUT_DIR, 'wllama.wasm'));
    expect(memoryLimitsFlag(threaded) & 2).toBe(2);
    expect(memoryLimitsFlag(wasm) & 2).toBe(0);
  });
});

/** The limits flag of the module's imported memory (its import section entry of kind 2). */
function memoryLimitsFlag(wasm: Buffer): number {
  const leb = (at: number): [number, number] => {
    let v = 0;
    for (let i = at, shift = 0; ; i++, shift += 7) {
      v += ((wasm[i] as number) & 0x7f) * 2 ** shift;
      if (!((wasm[i] as number) & 0x80)) return [v, i + 1];
    }
  };
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at] as number;
    const [size, body] = leb(at + 1);
    if (id === 2) {
      let [count, p] = leb(body);
      for (; count > 0; count--) {
        for (let k = 0; k < 2; k++) {
          const [len, next] = leb(p); // module name, then field name
          p = next + len;
        }
        const kind = wasm[p] as number;
        if (kind === 2) return wasm[p + 1] as number;
        // func: type index; table: reftype + limits; global: valtype + mut
        if (kind === 0) p = leb(p + 1)[1];
        else if (kind === 1) {
          const flag = wasm[p + 2] as number;
          p = leb(p + 3)[1];
          if (flag & 1) p = leb(p)[1];
        } else p += 3;
      }
    }
    at = body + size;
  }
  throw new Error('no imported memory');
}

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
