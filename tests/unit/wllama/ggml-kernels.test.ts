/**
 * ggml's wasm SIMD kernels as intab patches them, against ggml's own generic C kernels (issue 47),
 * both compiled from the same staged llama.cpp into wasm/kernel-test/kernels.wasm by
 * scripts/build-kernel-test.mjs and run here in Node's wasm SIMD. Each kernel gets the same blocks:
 * where every float step is exact (unit scales, small sub-block scales, one block) both must equal
 * the integer dot product bit for bit; elsewhere they may differ by float rounding only. The
 * manifest's digest is recomputed, so a patch changed without rebuilding the harness fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KERNEL_TEST_DIR,
  KERNEL_TEST_EXPORTS,
  KERNEL_TEST_PATCHES,
  kernelTestDigest,
} from '../../../scripts/build-kernel-test.mjs';
import { PATCHES, PENDING_PATCHES, patchDigests, sha256 } from '../../../scripts/build-wasm.mjs';

const manifest = JSON.parse(readFileSync(join(KERNEL_TEST_DIR, 'manifest.json'), 'utf8'));
const wasm = readFileSync(join(KERNEL_TEST_DIR, 'kernels.wasm'));

interface Kernels {
  memory: WebAssembly.Memory;
  _initialize(): void;
  init(): void;
  alloc(bytes: number): number;
  q6_K_wasm(n: number, x: number, y: number): number;
  q6_K_generic(n: number, x: number, y: number): number;
}
const kernels = (() => {
  const k = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(wasm)), {})
    .exports as unknown as Kernels;
  k._initialize();
  k.init();
  return k;
})();

const QK_K = 256;
/** block_q6_K: ql[128] (low nibbles), qh[64] (2 high bits each), scales[16] (i8), d (fp16). */
const Q6_K_BYTES = 128 + 64 + 16 + 2;
/** block_q8_K: d (f32), qs[256] (i8), bsums[16] (i16, unread by these kernels). */
const Q8_K_BYTES = 4 + QK_K + 32;
/** The most blocks one case holds (the buffers' size); a property's work is runs × blocks × 256. */
const MAX_BLOCKS = 4;
const xAt = kernels.alloc(MAX_BLOCKS * Q6_K_BYTES);
const yAt = kernels.alloc(MAX_BLOCKS * Q8_K_BYTES);

interface Block {
  q6: Uint8Array; // ql + qh, 192 bytes
  scales: Int8Array;
  d: number; // fp16 bits
  q8: Int8Array;
  yd: number;
}

/** The 6-bit value of element `e` of a block (ggml-common.h's layout), already less 32. */
function q6Value(q6: Uint8Array, e: number): number {
  const h = e >> 7; // which 128-half
  const g = (e >> 5) & 3; // which 32-group in it
  const l = e & 31;
  const ql = q6[64 * h + l + (g & 1 ? 32 : 0)] as number;
  const qh = q6[128 + 32 * h + l] as number;
  return ((g < 2 ? ql & 0xf : ql >> 4) | (((qh >> (2 * g)) & 3) << 4)) - 32;
}

/** Σ scale·q·y over a block, exactly (an integer well inside 2^53). */
const integerDot = (b: Block) => {
  let sum = 0;
  for (let e = 0; e < QK_K; e++) sum += (b.scales[e >> 4] as number) * q6Value(b.q6, e) * (b.q8[e] as number);
  return sum;
};
/** Σ |scale·q·y|: the size float rounding is relative to. */
const magnitude = (b: Block) => {
  let sum = 0;
  for (let e = 0; e < QK_K; e++)
    sum += Math.abs((b.scales[e >> 4] as number) * q6Value(b.q6, e) * (b.q8[e] as number));
  return sum;
};

function run(blocks: Block[]) {
  const m = new Uint8Array(kernels.memory.buffer);
  const view = new DataView(kernels.memory.buffer);
  blocks.forEach((b, i) => {
    const x = xAt + i * Q6_K_BYTES;
    m.set(b.q6, x);
    m.set(new Uint8Array(b.scales.buffer, b.scales.byteOffset, 16), x + 192);
    view.setUint16(x + 208, b.d, true);
    const y = yAt + i * Q8_K_BYTES;
    view.setFloat32(y, b.yd, true);
    m.set(new Uint8Array(b.q8.buffer, b.q8.byteOffset, QK_K), y + 4);
  });
  const n = blocks.length * QK_K;
  return { simd: kernels.q6_K_wasm(n, xAt, yAt), generic: kernels.q6_K_generic(n, xAt, yAt) };
}

const ONE_FP16 = 0x3c00;
const fp16 = (bits: number) => {
  const e = (bits >> 10) & 0x1f;
  const f = bits & 0x3ff;
  const v = e === 0 ? f * 2 ** -24 : (1 + f / 1024) * 2 ** (e - 15);
  return bits & 0x8000 ? -v : v;
};
const block = (scale: fc.Arbitrary<number>, d: fc.Arbitrary<number>, yd: fc.Arbitrary<number>) =>
  fc.record({
    q6: fc.uint8Array({ minLength: 192, maxLength: 192 }),
    scales: fc.array(scale, { minLength: 16, maxLength: 16 }).map((s) => Int8Array.from(s)),
    d,
    q8: fc
      .array(fc.integer({ min: -128, max: 127 }), { minLength: QK_K, maxLength: QK_K })
      .map((q) => Int8Array.from(q)),
    yd,
  });

describe('the harness (wasm/kernel-test/)', () => {
  it("is what scripts/build-kernel-test.mjs builds from today's patches, harness and flags", () => {
    expect(manifest.inputsSha256).toBe(kernelTestDigest());
    expect(manifest.patches).toEqual(patchDigests(KERNEL_TEST_PATCHES));
    // Every kernel patch of the builds, and those waiting for a rebuild, is under test here.
    expect(KERNEL_TEST_PATCHES).toEqual([...PATCHES, ...PENDING_PATCHES]);
    expect(PENDING_PATCHES).toContain('scripts/wasm/ggml-q6_K-simd.patch');
    expect(manifest.outputs['kernels.wasm']).toEqual({ sha256: sha256(wasm), bytes: wasm.length });
  });

  it('is a standalone module exporting both kernels, with SIMD code in it', () => {
    const mod = new WebAssembly.Module(new Uint8Array(wasm));
    expect(WebAssembly.Module.imports(mod)).toEqual([]);
    const names = WebAssembly.Module.exports(mod).map((e) => e.name);
    for (const name of KERNEL_TEST_EXPORTS) expect(names).toContain(name);
    // i32x4.dot_i16x8_s (0xFD 0xBA 0x01): the patched Q6_K kernel's product.
    expect(wasm.includes(Buffer.from([0xfd, 0xba, 0x01]))).toBe(true);
  });
});

describe('ggml_vec_dot_q6_K_q8_K (scripts/wasm/ggml-q6_K-simd.patch) against the generic kernel', () => {
  it('equals the integer dot product bit for bit where every float step is exact', () => {
    // Unit d and y.d, |scale| <= 8: |Σ| <= 256·32·128·8 = 2^23, so all partial sums are exact floats.
    const exact = block(fc.integer({ min: -8, max: 8 }), fc.constant(ONE_FP16), fc.constant(1));
    fc.assert(
      fc.property(exact, (b) => {
        const { simd, generic } = run([b]);
        expect(generic).toBe(integerDot(b));
        expect(simd).toBe(generic);
      }),
      { numRuns: 200 },
    );
  });

  it('agrees to float rounding on several blocks with full-range scales and real deltas', () => {
    // Normal fp16 deltas of either sign (|d| in 2^-14 .. 2^4) and y.d in ±2^-10 .. 2^4.
    const d = fc.integer({ min: 1 << 10, max: 19 << 10 }).chain((b) => fc.constantFrom(b, b | 0x8000));
    const yd = fc.double({ min: 2 ** -10, max: 16, noNaN: true }).map((v) => Math.fround(v));
    const blocks = fc.array(block(fc.integer({ min: -128, max: 127 }), d, yd), {
      minLength: 1,
      maxLength: MAX_BLOCKS,
    });
    fc.assert(
      fc.property(blocks, (bs) => {
        const { simd, generic } = run(bs);
        const exact = bs.reduce((s, b) => s + fp16(b.d) * b.yd * integerDot(b), 0);
        const size = bs.reduce((s, b) => s + Math.abs(fp16(b.d) * b.yd) * magnitude(b), 0);
        // f32 accumulation over ≤ 8 lanes × 4 blocks: well inside 2^-18 of the terms' size.
        expect(Math.abs(simd - generic)).toBeLessThanOrEqual(size * 2 ** -18);
        expect(Math.abs(simd - exact)).toBeLessThanOrEqual(size * 2 ** -18);
      }),
      { numRuns: 100 },
    );
  });
});
