/**
 * Deflate data written bit by bit, for streams zlib would never write (and refuses to read) but
 * pdf.js's lenient decoder reads: a distance before the output's start, an over-subscribed code.
 *
 * @example
 * const w = new DeflateBits();
 * w.bits(0b011, 3); // final block, fixed codes
 * w.literal(0x41);
 * w.endOfBlock();
 * const data = w.zlib(); // with a zlib header, no checksum (pdf.js reads none)
 */
export class DeflateBits {
  private readonly out: number[] = [];
  private acc = 0;
  private n = 0;

  /** `count` bits of `value`, least significant first (header fields, extra bits). */
  bits(value: number, count: number): void {
    for (let i = 0; i < count; i++) {
      this.acc |= ((value >> i) & 1) << this.n;
      if (++this.n === 8) {
        this.out.push(this.acc);
        this.acc = 0;
        this.n = 0;
      }
    }
  }

  /** A Huffman code, most significant bit first. */
  code(code: number, len: number): void {
    for (let i = len - 1; i >= 0; i--) this.bits((code >> i) & 1, 1);
  }

  /** A literal byte with the fixed codes. */
  literal(v: number): void {
    if (v < 144) this.code(0x30 + v, 8);
    else this.code(0x190 + v - 144, 9);
  }

  /** A match of 258 bytes (fixed code 285) at `dist`, 1 or 32768. */
  match258(dist: 1 | 32768): void {
    this.code(0xc0 + 5, 8);
    if (dist === 1) this.code(0, 5);
    else {
      this.code(29, 5);
      this.bits(32768 - 24577, 13);
    }
  }

  endOfBlock(): void {
    this.code(0, 7);
  }

  /** The bytes so far, last byte padded. */
  raw(): Uint8Array {
    return new Uint8Array(this.n > 0 ? [...this.out, this.acc] : this.out);
  }

  /** The bytes after a zlib header (`0x78 0x01` unless given). */
  zlib(header: [number, number] = [0x78, 0x01]): Uint8Array {
    const raw = this.raw();
    const out = new Uint8Array(raw.byteLength + 2);
    out.set(header);
    out.set(raw, 2);
    return out;
  }
}
