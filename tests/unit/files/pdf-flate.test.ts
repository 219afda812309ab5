import { constants, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PdfJsInflater } from '../../../src/core/inputs/pdf-flate';
import { DeflateBits } from '../../helpers/deflate-bits';

/** `data` through the inflater, fed `step` bytes at a time; its output, and the table entries it reported. */
function inflate(
  data: Uint8Array,
  step: number,
): { out: Buffer; entries: number; exact: boolean; runs: number } {
  let entries = 0;
  let runs = 0;
  const inflater = new PdfJsInflater((n) => {
    entries += n;
  });
  const parts: Buffer[] = [];
  for (let at = 0; at < data.byteLength && !inflater.done; at += step) {
    inflater.feed(data.subarray(at, at + step));
    do {
      parts.push(Buffer.from(inflater.run()));
      runs++;
    } while (!inflater.done && !inflater.starved);
  }
  inflater.end();
  while (!inflater.done) parts.push(Buffer.from(inflater.run()));
  return { out: Buffer.concat(parts), entries, exact: inflater.exact, runs };
}

describe("pdf.js's flate decoder, re-run to measure (issue 43 item 7)", () => {
  const text = Buffer.from('BT /F1 12 Tf 72 720 Td (Some text on a page) Tj ET\n'.repeat(3000));
  const noise = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 2654435761) >>> 24));
  const input = Buffer.concat([text, noise, Buffer.alloc(300_000, 9), text]);

  it('inflates what zlib writes, byte for byte, however the input is cut', () => {
    for (const strategy of [constants.Z_DEFAULT_STRATEGY, constants.Z_FIXED, constants.Z_HUFFMAN_ONLY]) {
      for (const level of [0, 1, 9]) {
        // Cut a byte at a time (a small input: each cut costs a run), and at 64 KiB.
        for (const [step, bytes] of [
          [1, input.subarray(0, 40_000)],
          [65_536, input],
        ] as const) {
          const { out, exact } = inflate(deflateSync(bytes, { level, strategy }), step);
          expect(out.equals(bytes), `level ${level} strategy ${strategy} step ${step}`).toBe(true);
          expect(exact).toBe(true);
        }
      }
    }
  });

  it('yields a slice at a time: 256 KiB of output at most per run', () => {
    const data = deflateSync(Buffer.alloc(8 * 1024 * 1024), { level: 9 });
    const { out, runs } = inflate(data, data.byteLength);
    expect(out.byteLength).toBe(8 * 1024 * 1024);
    expect(runs).toBeGreaterThanOrEqual(32);
  });

  it('goes on where zlib stops: a copy from before the start counts its length (zeros)', () => {
    const w = new DeflateBits();
    w.bits(0b011, 3);
    w.literal(0x41);
    w.match258(32768);
    w.match258(1);
    w.endOfBlock();
    const { out, exact } = inflate(w.zlib(), 3);
    expect(out.byteLength).toBe(1 + 258 * 2);
    expect(out[0]).toBe(0x41);
    expect(exact).toBe(false);
  });

  it('reports the Huffman-table entries it fills (a dynamic block of honest data: up to 64 Ki)', () => {
    const data = deflateSync(text, { level: 9 });
    const { entries } = inflate(data, 1000);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(text.byteLength);
  });
});
