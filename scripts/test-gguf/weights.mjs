/**
 * Deterministic random weights for the test models: a seedable PRNG, a per-tensor seed, and the
 * f32, f16 and Q8_0 encodings ggml reads, so the same variant gives the same bytes on every platform.
 *
 * @example
 * const bytes = encode(randomValues(64, 0.2, tensorSeed(seed, 'token_embd.weight')), 'f16');
 */
import { createHash } from 'node:crypto';

/** mulberry32: a tiny, fast, seedable PRNG; the same seed gives the same stream on every platform. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A per-tensor seed, so each tensor's values do not depend on the order tensors are generated in. */
export function tensorSeed(base, name) {
  return createHash('sha256').update(`${base}:${name}`).digest().readUInt32LE(0);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** IEEE 754 half precision bits of `v` (round to nearest even; these weights never overflow). */
function toHalf(v) {
  f32[0] = v;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  let exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = (mant >>> shift) + ((mant >>> (shift - 1)) & 1);
    return sign | half;
  }
  if (exp >= 31) return sign | 0x7c00;
  const rounded = mant + 0xfff + ((mant >>> 13) & 1);
  if (rounded & 0x800000) {
    mant = 0;
    exp += 1;
    if (exp >= 31) return sign | 0x7c00;
  } else mant = rounded;
  return sign | (exp << 10) | (mant >>> 13);
}

/** Uniform values with standard deviation `std`, `count` of them, from `seed`. */
export function randomValues(count, std, seed) {
  const next = mulberry32(seed);
  const a = std * Math.sqrt(3);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (next() * 2 - 1) * a;
  return out;
}

/** Encodes f32 values as ggml `type` bytes. Q8_0: blocks of 32 values, an f16 scale then 32 int8. */
export function encode(values, type) {
  if (type === 'f32') return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  if (type === 'f16') {
    const out = Buffer.alloc(values.length * 2);
    for (let i = 0; i < values.length; i++) out.writeUInt16LE(toHalf(values[i]), i * 2);
    return out;
  }
  if (type === 'q8_0') {
    if (values.length % 32 !== 0) throw new Error('Q8_0 needs a multiple of 32 values');
    const blocks = values.length / 32;
    const out = Buffer.alloc(blocks * 34);
    for (let b = 0; b < blocks; b++) {
      let amax = 0;
      for (let i = 0; i < 32; i++) amax = Math.max(amax, Math.abs(values[b * 32 + i]));
      const d = amax / 127;
      const id = d === 0 ? 0 : 1 / d;
      const o = b * 34;
      out.writeUInt16LE(toHalf(d), o);
      for (let i = 0; i < 32; i++) out.writeInt8(Math.round(values[b * 32 + i] * id), o + 2 + i);
    }
    return out;
  }
  throw new Error(`unsupported tensor type ${type}`);
}
