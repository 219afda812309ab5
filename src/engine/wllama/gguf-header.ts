/**
 * Reads a GGUF file's metadata (the key/value section before the tensors) and its tensor list from a
 * Blob, a slice at a time. llama.cpp keeps array values (the vocabulary) out of the metadata wllama
 * reports, and intab needs them before and beside the load: the chat template and name for the model
 * family, the vocabulary for the tokens that are not valid UTF-8 on their own; the tensor list says
 * how long the file must be, so a file cut inside its weights is refused before llama.cpp runs it.
 */

/** A metadata value: numbers as numbers (64-bit ones as bigint), arrays as arrays. */
export type GgufValue = string | number | bigint | boolean | GgufValue[];

export interface GgufHeader {
  version: number;
  tensorCount: number;
  /** Every key/value pair, in file order. */
  metadata: Map<string, GgufValue>;
  /**
   * The bytes the file must hold: where its tensor data starts plus the end of its last tensor's
   * data. Null when it has no tensors, or one of a ggml type intab has no size for (no check then).
   */
  expectedBytes: number | null;
}

/** Something with `slice(start, end).arrayBuffer()`: a Blob or File. */
export interface BlobLike {
  size: number;
  slice(start?: number, end?: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

const MAGIC = 0x46554747; // "GGUF", little-endian
const TYPE = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;

/** Thrown for a file that is not GGUF or is cut short; the engine turns it into a 400 or a load error. */
export class GgufFormatError extends Error {
  override readonly name = 'GgufFormatError';
}

/** Signals that the buffer ended mid-value: read more and parse again. */
class NeedMore extends Error {}

/**
 * Bounds on what a GGUF header may claim. The real ones are far inside them (a 262k vocabulary with
 * its merges and scores takes about 15 MiB; a chat template tens of KiB), and a corrupt or hostile
 * length past them is an error, not a read window that doubles up to the whole multi-GB file.
 */
export const GGUF_LIMITS = {
  /** The most bytes read for the metadata section: 64 MiB. */
  headerBytes: 64 << 20,
  /** The longest string value or key: 16 MiB. */
  stringBytes: 16 << 20,
  /** The most elements in one array value (vocabularies hold up to ~262k tokens, ~500k merges). */
  arrayLength: 4_000_000,
  /** The most key/value pairs. */
  keyValues: 65_536,
  /** The most tensors (a big mixture of experts has a few thousand). */
  tensors: 1_000_000,
} as const;

/**
 * ggml's tensor types by number (ggml.h): [values per block, bytes per block]. A type missing here
 * (one removed, or newer than this table) makes the size check skip the file rather than fail it.
 */
const GGML_TYPE_SIZE: Record<number, readonly [number, number]> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  9: [32, 36], // Q8_1
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  15: [256, 292], // Q8_K
  16: [256, 66], // IQ2_XXS
  17: [256, 74], // IQ2_XS
  18: [256, 98], // IQ3_XXS
  19: [256, 50], // IQ1_S
  20: [32, 18], // IQ4_NL
  21: [256, 110], // IQ3_S
  22: [256, 82], // IQ2_S
  23: [256, 136], // IQ4_XS
  24: [1, 1], // I8
  25: [1, 2], // I16
  26: [1, 4], // I32
  27: [1, 8], // I64
  28: [1, 8], // F64
  29: [256, 56], // IQ1_M
  30: [1, 2], // BF16
  34: [256, 54], // TQ1_0
  35: [256, 66], // TQ2_0
  39: [32, 17], // MXFP4
};

/** ggml's most dimensions a tensor has. */
const GGML_MAX_DIMS = 4;

/**
 * Parses the header of a GGUF file. Reads the first `initialBytes` (8 MiB: a 128k vocabulary with
 * merges takes about 7 MiB) and doubles the window until the metadata fits, up to
 * `GGUF_LIMITS.headerBytes`; a header that needs more is a {@link GgufFormatError}.
 *
 * @example
 * const { metadata } = await readGgufHeader(file);
 * metadata.get('general.architecture'); // 'llama'
 */
export async function readGgufHeader(blob: BlobLike, initialBytes = 8 << 20): Promise<GgufHeader> {
  let window = Math.min(initialBytes, blob.size);
  for (;;) {
    const bytes = new Uint8Array(await blob.slice(0, window).arrayBuffer());
    try {
      return parseGgufHeader(bytes);
    } catch (err) {
      if (!(err instanceof NeedMore)) throw err;
      if (window >= blob.size) {
        throw new GgufFormatError('The GGUF file ends inside its header (its metadata or its tensor list).');
      }
      if (window >= GGUF_LIMITS.headerBytes) {
        throw new GgufFormatError(
          `The GGUF metadata does not end within ${GGUF_LIMITS.headerBytes >> 20} MiB (the most intab reads): the file is corrupt.`,
        );
      }
      window = Math.min(blob.size, GGUF_LIMITS.headerBytes, window * 2);
    }
  }
}

/**
 * Parses a GGUF header from bytes that hold at least the whole metadata section.
 *
 * @example
 * parseGgufHeader(new Uint8Array(await blob.arrayBuffer())).metadata.get('tokenizer.chat_template');
 */
export function parseGgufHeader(bytes: Uint8Array): GgufHeader {
  const r = new Reader(bytes);
  if (bytes.length < 4) throw new NeedMore();
  if (r.u32() !== MAGIC) throw new GgufFormatError('Not a GGUF file (its first bytes are not "GGUF").');
  const version = r.u32();
  if (version < 2 || version > 3) throw new GgufFormatError(`Unsupported GGUF version ${version}.`);
  const tensorCount = r.length(GGUF_LIMITS.tensors, 'tensors');
  const kvCount = r.length(GGUF_LIMITS.keyValues, 'key/value pairs');
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = r.string();
    const type = r.u32();
    metadata.set(key, r.value(type));
  }
  const alignment = metadata.get('general.alignment');
  const expectedBytes = tensorDataEnd(r, tensorCount, typeof alignment === 'number' ? alignment : 32);
  return { version, tensorCount, metadata, expectedBytes };
}

/**
 * Reads the tensor list after the metadata: where the data section starts (aligned) plus the end of
 * the tensor whose data ends last, as llama.cpp's loader bounds each tensor (`offs + ggml_nbytes`).
 */
function tensorDataEnd(r: Reader, count: number, alignment: number): number | null {
  if (!Number.isInteger(alignment) || alignment <= 0)
    throw new GgufFormatError(`Bad GGUF alignment ${alignment}.`);
  let end = 0n;
  let known = count > 0;
  for (let i = 0; i < count; i++) {
    r.string();
    const dims = r.u32();
    if (dims > GGML_MAX_DIMS)
      throw new GgufFormatError(`A GGUF tensor claims ${dims} dimensions: the file is corrupt.`);
    const ne: bigint[] = [];
    for (let d = 0; d < dims; d++) ne.push(r.u64());
    const size = GGML_TYPE_SIZE[r.u32()];
    const offset = r.u64();
    if (!size) {
      known = false;
      continue;
    }
    const [block, bytes] = size;
    const rows = ne.slice(1).reduce((a, b) => a * b, 1n);
    const blocks = (ne[0] ?? 1n) / BigInt(block);
    const tensorEnd = offset + blocks * BigInt(bytes) * rows;
    if (tensorEnd > end) end = tensorEnd;
  }
  if (!known) return null;
  const dataStart = BigInt(Math.ceil(r.offset() / alignment) * alignment);
  return Number(dataStart + end);
}

/**
 * Throws a {@link GgufFormatError} when a file of `size` bytes is shorter than its tensors need (a
 * download or a cached copy cut inside the weights): llama.cpp would otherwise fail on it in ways
 * that do not say so.
 *
 * @example
 * checkGgufComplete(await readGgufHeader(blob), blob.size);
 */
export function checkGgufComplete(header: GgufHeader, size: number): void {
  const need = header.expectedBytes;
  if (need !== null && size < need) {
    throw new GgufFormatError(`The GGUF file is truncated: ${size} bytes, its tensors need ${need}.`);
  }
}

class Reader {
  private readonly view: DataView;
  private at = 0;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** How many bytes were read. */
  offset(): number {
    return this.at;
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length) throw new NeedMore();
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }

  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.at, true);
    this.at += 8;
    return v;
  }

  /** A u64 count or length, refused past `max` (compared as a bigint: no rounding past 2^53). */
  length(max: number, what: string): number {
    const n = this.u64();
    if (n > BigInt(max)) {
      throw new GgufFormatError(
        `The GGUF header claims ${n} ${what} at byte ${this.at - 8}, more than the ${max} intab accepts: the file is corrupt.`,
      );
    }
    return Number(n);
  }

  string(): string {
    const n = this.length(GGUF_LIMITS.stringBytes, 'bytes of string');
    this.need(n);
    const s = this.decoder.decode(this.bytes.subarray(this.at, this.at + n));
    this.at += n;
    return s;
  }

  value(type: number): GgufValue {
    switch (type) {
      case TYPE.STRING:
        return this.string();
      case TYPE.ARRAY: {
        const elementType = this.u32();
        const count = this.length(GGUF_LIMITS.arrayLength, 'array elements');
        const out: GgufValue[] = new Array(count);
        for (let i = 0; i < count; i++) out[i] = this.value(elementType);
        return out;
      }
      case TYPE.BOOL:
        return this.scalar(1, (at) => this.view.getUint8(at) !== 0);
      case TYPE.UINT8:
        return this.scalar(1, (at) => this.view.getUint8(at));
      case TYPE.INT8:
        return this.scalar(1, (at) => this.view.getInt8(at));
      case TYPE.UINT16:
        return this.scalar(2, (at) => this.view.getUint16(at, true));
      case TYPE.INT16:
        return this.scalar(2, (at) => this.view.getInt16(at, true));
      case TYPE.UINT32:
        return this.scalar(4, (at) => this.view.getUint32(at, true));
      case TYPE.INT32:
        return this.scalar(4, (at) => this.view.getInt32(at, true));
      case TYPE.FLOAT32:
        return this.scalar(4, (at) => this.view.getFloat32(at, true));
      case TYPE.UINT64:
        return this.scalar(8, (at) => this.view.getBigUint64(at, true));
      case TYPE.INT64:
        return this.scalar(8, (at) => this.view.getBigInt64(at, true));
      case TYPE.FLOAT64:
        return this.scalar(8, (at) => this.view.getFloat64(at, true));
      default:
        throw new GgufFormatError(`Unknown GGUF value type ${type}.`);
    }
  }

  private scalar<T extends GgufValue>(size: number, read: (at: number) => T): T {
    this.need(size);
    const v = read(this.at);
    this.at += size;
    return v;
  }
}

/**
 * A metadata string, or undefined when absent or not a string.
 *
 * @example
 * metaString(header, 'general.name'); // 'intab tiny random (Llama 3 vocabulary)'
 */
export function metaString(header: GgufHeader, key: string): string | undefined {
  const v = header.metadata.get(key);
  return typeof v === 'string' ? v : undefined;
}

/**
 * A numeric metadata value as a number, or undefined.
 *
 * @example
 * metaNumber(header, `${arch}.context_length`); // 8192
 */
export function metaNumber(header: GgufHeader, key: string): number | undefined {
  const v = header.metadata.get(key);
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return undefined;
}
