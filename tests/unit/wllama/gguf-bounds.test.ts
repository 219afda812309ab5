/**
 * The GGUF header reader bounds every length it reads: a corrupt (or hostile) string length, array
 * length or key count is a clear GgufFormatError at once, and the read window stops growing at
 * GGUF_LIMITS.headerBytes instead of doubling up to the size of a multi-GB file.
 */
import { describe, expect, it } from 'vitest';
import {
  type BlobLike,
  GGUF_LIMITS,
  GgufFormatError,
  parseGgufHeader,
  readGgufHeader,
} from '../../../src/engine/wllama/gguf-header';

/** Header bytes: magic, version 3, no tensors, `kvs` key/value pairs written by `body`. */
function header(kvs: bigint, body: (w: Writer) => void): Uint8Array<ArrayBuffer> {
  const w = new Writer();
  w.u32(0x46554747);
  w.u32(3);
  w.u64(0n);
  w.u64(kvs);
  body(w);
  return w.bytes();
}

class Writer {
  private readonly out: number[] = [];
  u32(v: number): void {
    for (let i = 0; i < 4; i++) this.out.push((v >>> (8 * i)) & 255);
  }
  u64(v: bigint): void {
    for (let i = 0n; i < 8n; i++) this.out.push(Number((v >> (8n * i)) & 255n));
  }
  str(s: string): void {
    const b = new TextEncoder().encode(s);
    this.u64(BigInt(b.length));
    this.out.push(...b);
  }
  bytes(): Uint8Array<ArrayBuffer> {
    return Uint8Array.from(this.out);
  }
}

/**
 * A file of `size` bytes (8 GB by default, as a big model) whose first bytes are `head` and the rest
 * zeros; it records the windows asked for and never makes one larger than what it holds.
 */
function bigFile(head: Uint8Array, size = 8 * 2 ** 30): BlobLike & { windows: number[] } {
  const windows: number[] = [];
  return {
    size,
    windows,
    slice(start = 0, end = size) {
      windows.push(end - start);
      const copy = new Uint8Array(Math.min(end - start, head.length + 1024));
      copy.set(head.subarray(start, Math.min(end, head.length)));
      return { arrayBuffer: async () => copy.buffer };
    },
  };
}

describe('GGUF header bounds', () => {
  it('refuses a string length past 16 MiB at once, naming it, with one read', async () => {
    const file = bigFile(
      header(1n, (w) => {
        w.u64(1n << 40n); // a key "1 TiB long"
      }),
    );
    const err = await readGgufHeader(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GgufFormatError);
    expect((err as Error).message).toMatch(/claims 1099511627776 bytes of string .* more than the 16777216/);
    expect(file.windows).toEqual([8 << 20]);
  });

  it('refuses an array longer than the bound and more key/value pairs than the bound', () => {
    const array = header(1n, (w) => {
      w.str('tokenizer.ggml.tokens');
      w.u32(9);
      w.u32(8);
      w.u64(BigInt(GGUF_LIMITS.arrayLength) + 1n);
    });
    expect(() => parseGgufHeader(array)).toThrow(/array elements/);
    expect(() => parseGgufHeader(header(2n ** 63n, () => {}))).toThrow(/key\/value pairs/);
  });

  it('stops growing the read window at 64 MiB (it used to double up to the whole 8 GB file)', async () => {
    // A string that claims 15 MiB, in a file with no more metadata: every window comes up short.
    const file = bigFile(
      header(2n, (w) => {
        w.str('general.architecture');
        w.u32(8);
        w.str('llama');
        w.str('general.name');
        w.u32(8);
        w.u64(15n << 20n);
      }),
    );
    // The file "holds" the 15 MiB string only as far as bigFile pads it: reads come up short.
    const err = await readGgufHeader(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GgufFormatError);
    expect((err as Error).message).toMatch(/does not end within 64 MiB/);
    expect(Math.max(...file.windows)).toBe(GGUF_LIMITS.headerBytes);
    expect(file.windows).toEqual([8 << 20, 16 << 20, 32 << 20, 64 << 20]);
  });

  it('still reads a real header', async () => {
    const bytes = header(1n, (w) => {
      w.str('general.architecture');
      w.u32(8);
      w.str('llama');
    });
    const parsed = await readGgufHeader(new Blob([bytes]));
    expect(parsed.metadata.get('general.architecture')).toBe('llama');
  });
});
