/**
 * pdf.js's own inflater (`FlateStream` in pdfjs-dist 6), re-run to count what it would output (issue
 * 43 item 7). pdf.js inflates with the platform's `DecompressionStream` first and, where that fails
 * (a window size zlib refuses, a distance too far back, an incomplete Huffman code, bytes after the
 * end), with this decoder, which accepts all of those: a scan that measured with zlib alone let a
 * 1 GiB stream through. So this is its algorithm step for step, bit reader quirks included (a stored
 * block's header is read from the next whole byte, whatever bits the reader had buffered), resumable
 * between input chunks, and yielding its output a slice at a time with no more than 32 KiB kept.
 *
 * Where pdf.js copies from before its output's start (a distance too far back), it reads its buffer's
 * tail: the count is exact, the bytes are not reproduced ({@link PdfJsInflater.exact} turns false).
 */

/** pdf.js's tables (flate_stream.js): code length order, length and distance bases with extra bits. */
const CODE_LEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const LENGTH_DECODE = new Int32Array([
  0x00003, 0x00004, 0x00005, 0x00006, 0x00007, 0x00008, 0x00009, 0x0000a, 0x1000b, 0x1000d, 0x1000f, 0x10011,
  0x20013, 0x20017, 0x2001b, 0x2001f, 0x30023, 0x3002b, 0x30033, 0x3003b, 0x40043, 0x40053, 0x40063, 0x40073,
  0x50083, 0x500a3, 0x500c3, 0x500e3, 0x00102, 0x00102, 0x00102,
]);
const DIST_DECODE = new Int32Array([
  0x00001, 0x00002, 0x00003, 0x00004, 0x10005, 0x10007, 0x20009, 0x2000d, 0x30011, 0x30019, 0x40021, 0x40031,
  0x50041, 0x50061, 0x60081, 0x600c1, 0x70101, 0x70181, 0x80201, 0x80301, 0x90401, 0x90601, 0xa0801, 0xa0c01,
  0xb1001, 0xb1801, 0xc2001, 0xc3001, 0xd4001, 0xd6001,
]);

/** The most a distance reaches back (dist code 29 with all extra bits): the history kept. */
const WINDOW = 32 * 1024;
/** Output bytes, and units of work (symbols, table entries, stored bytes), per {@link PdfJsInflater.run}. */
const OUT_SLICE = 256 * 1024;
const WORK_SLICE = 1024 * 1024;

type Table = { codes: Int32Array; maxLen: number };

/** Input ran out mid-step and more may come: the step is undone and retried with more. */
const NEED = Symbol('need input');
/** What pdf.js's FormatError is to it: the data ends here (its `readBlock` sets eof). */
const CORRUPT = Symbol('corrupt');

/** pdf.js's generateHuffmanTable, and what it costs pdf.js (entries written, loop steps). */
function huffmanTable(lengths: Uint8Array): { table: Table; cost: number } {
  const n = lengths.length;
  let maxLen = 0;
  for (let i = 0; i < n; ++i) if ((lengths[i] ?? 0) > maxLen) maxLen = lengths[i] ?? 0;
  const size = 1 << maxLen;
  const codes = new Int32Array(size);
  let cost = n * maxLen;
  for (let len = 1, code = 0, skip = 2; len <= maxLen; ++len, code <<= 1, skip <<= 1) {
    for (let val = 0; val < n; ++val) {
      if (lengths[val] !== len) continue;
      let code2 = 0;
      let t = code;
      for (let i = 0; i < len; ++i) {
        code2 = (code2 << 1) | (t & 1);
        t >>= 1;
      }
      const entry = (len << 16) | val;
      for (let i = code2; i < size; i += skip) codes[i] = entry;
      // An over-subscribed code (lengths no encoder writes) fills the table once per code: pdf.js pays it.
      cost += len + Math.ceil((size - code2) / skip);
      ++code;
    }
  }
  return { table: { codes, maxLen }, cost };
}

function fixedTables(): { lit: Table; dist: Table } {
  const lit = new Uint8Array(288);
  lit.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
  return { lit: huffmanTable(lit).table, dist: huffmanTable(new Uint8Array(30).fill(5)).table };
}
const FIXED = fixedTables();

/**
 * One stream through pdf.js's decoder, from its zlib header on: {@link feed} input as it comes,
 * {@link end} at its last byte, {@link run} for output until it is {@link done} (or, before the
 * end, {@link starved}); see {@link pdfJsInflate}. The one work pdf.js
 * would do that grows with neither input nor output, filling Huffman tables (an over-subscribed code
 * of ~30 bytes fills 4.7 M entries), is reported to `onWork`, in entries.
 *
 * @example
 * const inflater = new PdfJsInflater((entries) => tables.add(entries));
 * inflater.feed(bytes);
 * inflater.end();
 * while (!inflater.done) count += inflater.run().byteLength;
 */
export class PdfJsInflater {
  /** False once the output holds bytes pdf.js would take from outside its output (see the module note). */
  exact = true;
  /** True once the data ended (pdf.js's eof): the last block, or data pdf.js cannot read further. */
  done = false;
  /** True when the last {@link run} stopped for input: {@link feed} more, or {@link end}. */
  starved = false;
  private buf = new Uint8Array(0);
  private pos = 0;
  /** pdf.js's constructor reads the two header bytes itself, bypassing the bit reader. */
  private header = 2;
  private final = false;
  private codeBuf = 0;
  private codeSize = 0;
  private last = false;
  private lit: Table | null = null;
  private dist: Table | null = null;
  /** Bytes left of a stored block; -1 outside one. */
  private stored = -1;
  private readonly out = new Uint8Array(WINDOW + OUT_SLICE + 258);
  private w = 0;
  /** Output bytes before `out[0]`. */
  private base = 0;

  constructor(private readonly onWork: (units: number) => void = () => {}) {}

  /** More of the stream's bytes (copied: the caller may reuse its buffer). */
  feed(bytes: Uint8Array): void {
    const skipped = Math.min(this.header, bytes.byteLength);
    this.header -= skipped;
    const chunk = bytes.subarray(skipped);
    const rest = this.buf.subarray(this.pos);
    const next = new Uint8Array(rest.byteLength + chunk.byteLength);
    next.set(rest);
    next.set(chunk, rest.byteLength);
    this.buf = next;
    this.pos = 0;
  }

  /** No more input: reads past the end now behave as pdf.js's do at the stream's end. */
  end(): void {
    this.final = true;
  }

  /**
   * Decodes a slice (up to 256 KiB out, or 1 Mi units of work, or until the input fed so far runs
   * out: see {@link starved}); returns its output, a view valid until the next call, maybe empty.
   */
  run(): Uint8Array {
    this.starved = false;
    if (this.done) return this.out.subarray(0, 0);
    if (this.w > WINDOW) {
      const shift = this.w - WINDOW;
      this.out.copyWithin(0, shift, this.w);
      this.base += shift;
      this.w = WINDOW;
    }
    const from = this.w;
    let work = 0;
    while (this.w - from < OUT_SLICE && work < WORK_SLICE && !this.done) {
      const { pos, codeBuf, codeSize } = this;
      try {
        work += this.step();
      } catch (err) {
        if (err === NEED) {
          this.starved = true;
          this.pos = pos;
          this.codeBuf = codeBuf;
          this.codeSize = codeSize;
          break;
        }
        if (err !== CORRUPT) throw err;
        this.done = true;
      }
    }
    return this.out.subarray(from, this.w);
  }

  /** One symbol, one piece of a stored block, or one block header; returns the work it took. */
  private step(): number {
    if (this.stored >= 0) return this.copyStored();
    if (this.lit && this.dist) return this.symbol(this.lit, this.dist);
    if (this.last) {
      this.done = true;
      return 0;
    }
    return this.blockHeader();
  }

  private byte(): number {
    if (this.pos < this.buf.byteLength) return this.buf[this.pos++] as number;
    if (!this.final) throw NEED;
    return -1;
  }

  private getBits(bits: number): number {
    while (this.codeSize < bits) {
      const b = this.byte();
      if (b === -1) throw CORRUPT;
      this.codeBuf |= b << this.codeSize;
      this.codeSize += 8;
    }
    const v = this.codeBuf & ((1 << bits) - 1);
    this.codeBuf >>= bits;
    this.codeSize -= bits;
    return v;
  }

  private getCode({ codes, maxLen }: Table): number {
    while (this.codeSize < maxLen) {
      const b = this.byte();
      if (b === -1) break;
      this.codeBuf |= b << this.codeSize;
      this.codeSize += 8;
    }
    const code = codes[this.codeBuf & ((1 << maxLen) - 1)] as number;
    const codeLen = code >> 16;
    if (codeLen < 1 || this.codeSize < codeLen) throw CORRUPT;
    this.codeBuf >>= codeLen;
    this.codeSize -= codeLen;
    return code & 0xffff;
  }

  /** A block's header, as pdf.js's readBlock reads it; all or nothing (a NEED undoes it). */
  private blockHeader(): number {
    let hdr = this.getBits(3);
    const last = (hdr & 1) === 1;
    hdr >>= 1;
    if (hdr === 0) {
      const header = [this.byte(), this.byte(), this.byte(), this.byte()];
      if (header.includes(-1)) throw CORRUPT;
      const [b0 = 0, b1 = 0, b2 = 0, b3 = 0] = header;
      const blockLen = b0 | (b1 << 8);
      const check = b2 | (b3 << 8);
      if (check !== (~blockLen & 0xffff) && (blockLen !== 0 || check !== 0)) throw CORRUPT;
      this.codeBuf = 0;
      this.codeSize = 0;
      if (blockLen === 0 && this.pos >= this.buf.byteLength) {
        if (!this.final) throw NEED;
        this.last = true; // pdf.js: an empty stored block at the stream's end is its end.
      }
      this.last ||= last;
      this.stored = blockLen;
      return 1;
    }
    let cost = 1;
    if (hdr === 1) {
      this.lit = FIXED.lit;
      this.dist = FIXED.dist;
    } else if (hdr === 2) {
      const numLitCodes = this.getBits(5) + 257;
      const numDistCodes = this.getBits(5) + 1;
      const numCodeLenCodes = this.getBits(4) + 4;
      const codeLenCodeLengths = new Uint8Array(CODE_LEN_ORDER.length);
      for (let i = 0; i < numCodeLenCodes; ++i)
        codeLenCodeLengths[CODE_LEN_ORDER[i] as number] = this.getBits(3);
      const codeLenTab = huffmanTable(codeLenCodeLengths);
      const codes = numLitCodes + numDistCodes;
      const codeLengths = new Uint8Array(codes);
      let len = 0;
      for (let i = 0; i < codes; ) {
        const code = this.getCode(codeLenTab.table);
        let bitsLength: number;
        let bitsOffset: number;
        let what: number;
        if (code === 16) {
          [bitsLength, bitsOffset, what] = [2, 3, len];
        } else if (code === 17) {
          [bitsLength, bitsOffset, what, len] = [3, 3, 0, 0];
        } else if (code === 18) {
          [bitsLength, bitsOffset, what, len] = [7, 11, 0, 0];
        } else {
          codeLengths[i++] = len = code;
          continue;
        }
        const repeatLen = this.getBits(bitsLength) + bitsOffset;
        codeLengths.fill(what, i, i + repeatLen);
        i += repeatLen;
      }
      const lit = huffmanTable(codeLengths.subarray(0, numLitCodes));
      const dist = huffmanTable(codeLengths.subarray(numLitCodes, codes));
      this.lit = lit.table;
      this.dist = dist.table;
      cost += codes;
      // Work pdf.js does that makes no output; all or nothing, as the header is (a NEED undid none of it).
      this.onWork(codeLenTab.cost + lit.cost + dist.cost);
    } else {
      throw CORRUPT;
    }
    this.last ||= last;
    return cost;
  }

  /** As much of a stored block as there is input and room for. */
  private copyStored(): number {
    const have = this.buf.byteLength - this.pos;
    const n = Math.min(this.stored, have, this.out.byteLength - this.w);
    this.out.set(this.buf.subarray(this.pos, this.pos + n), this.w);
    this.pos += n;
    this.w += n;
    this.stored -= n;
    if (this.stored > 0 && have === 0) {
      // Nothing was taken, so nothing to undo.
      if (!this.final) throw NEED;
      this.done = true; // pdf.js: a stored block cut short by the stream's end ends the data.
    }
    if (this.stored === 0) {
      this.stored = -1;
      if (this.last) this.done = true;
    }
    return n + 1;
  }

  /** One literal, match or end of block, with pdf.js's codes. */
  private symbol(lit: Table, distTable: Table): number {
    let code1 = this.getCode(lit);
    if (code1 < 256) {
      this.out[this.w++] = code1;
      return 1;
    }
    if (code1 === 256) {
      this.lit = null;
      this.dist = null;
      if (this.last) this.done = true;
      return 1;
    }
    code1 = LENGTH_DECODE[code1 - 257] ?? 0;
    let code2 = code1 >> 16;
    if (code2 > 0) code2 = this.getBits(code2);
    const len = (code1 & 0xffff) + code2;
    // pdf.js indexes its table with codes 30 and 31 too, reading undefined: a distance of 0.
    code1 = DIST_DECODE[this.getCode(distTable)] ?? 0;
    code2 = code1 >> 16;
    if (code2 > 0) code2 = this.getBits(code2);
    const dist = (code1 & 0xffff) + code2;
    const out = this.out;
    if (dist === 0 || dist > this.base + this.w) {
      // Before the output's start (or onto itself): pdf.js reads bytes this scan does not keep.
      this.exact = false;
      for (let k = 0; k < len; ++k, ++this.w) {
        out[this.w] = dist === 0 || dist > this.base + this.w ? 0 : (out[this.w - dist] as number);
      }
      return len;
    }
    let w = this.w;
    if (len <= dist) {
      out.copyWithin(w, w - dist, w - dist + len);
      w += len;
    } else {
      for (let k = 0; k < len; ++k, ++w) out[w] = out[w - dist] as number;
    }
    this.w = w;
    return len;
  }
}
