/**
 * GGUF encoding for the test models (scripts/build-test-gguf.mjs): the value and tensor type codes,
 * a little-endian header writer, and metadata entries as llama.cpp's gguf reader expects them.
 *
 * @example
 * const w = new ByteWriter();
 * writeKv(w, ['general.architecture', T.STRING, 'llama']);
 */

/** GGUF value types (ggml/include/gguf.h). */
export const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 };
/** ggml tensor types (ggml/include/ggml.h). */
export const GGML = { f32: 0, f16: 1, q8_0: 8 };
/** `general.file_type` (llama_ftype): mostly f16 = 1, mostly Q8_0 = 7. */
export const FILE_TYPE = { f16: 1, q8_0: 7 };
export const ALIGNMENT = 32;

/** Growable little-endian byte writer for the header. */
export class ByteWriter {
  constructor() {
    this.buf = Buffer.alloc(1 << 20);
    this.len = 0;
  }
  reserve(n) {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  u32(v) {
    this.reserve(4);
    this.buf.writeUInt32LE(v, this.len);
    this.len += 4;
  }
  i32(v) {
    this.reserve(4);
    this.buf.writeInt32LE(v, this.len);
    this.len += 4;
  }
  u64(v) {
    this.reserve(8);
    this.buf.writeBigUInt64LE(BigInt(v), this.len);
    this.len += 8;
  }
  f32(v) {
    this.reserve(4);
    this.buf.writeFloatLE(v, this.len);
    this.len += 4;
  }
  bool(v) {
    this.reserve(1);
    this.buf.writeUInt8(v ? 1 : 0, this.len);
    this.len += 1;
  }
  str(s) {
    const n = Buffer.byteLength(s, 'utf8');
    this.u64(n);
    this.reserve(n);
    this.buf.write(s, this.len, 'utf8');
    this.len += n;
  }
  pad(alignment) {
    const rest = this.len % alignment;
    if (rest === 0) return;
    this.reserve(alignment - rest);
    this.len += alignment - rest;
  }
  bytes() {
    return this.buf.subarray(0, this.len);
  }
}

/** One metadata entry: `[key, type, value]`, arrays as `[key, T.ARRAY, [elementType, values]]`. */
export function writeKv(w, [key, type, value]) {
  w.str(key);
  w.u32(type);
  writeValue(w, type, value);
}

function writeValue(w, type, value) {
  if (type === T.UINT32) w.u32(value);
  else if (type === T.INT32) w.i32(value);
  else if (type === T.FLOAT32) w.f32(value);
  else if (type === T.BOOL) w.bool(value);
  else if (type === T.STRING) w.str(value);
  else if (type === T.ARRAY) {
    const [elementType, values] = value;
    w.u32(elementType);
    w.u64(values.length);
    for (const v of values) writeValue(w, elementType, v);
  } else throw new Error(`unsupported GGUF type ${type}`);
}

// ─── deterministic weights ───────────────────────────────────────────────────────────────────────
/** Bytes a tensor of `type` with `count` values takes. */
export function tensorBytes(type, count) {
  if (type === 'f32') return count * 4;
  if (type === 'f16') return count * 2;
  return (count / 32) * 34;
}
