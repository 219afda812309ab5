import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import { setPaceProbe } from '../../../src/common/pace';
import { PDF_STREAM_BUDGETS } from '../../../src/core/inputs/pdf-streams';
import { pdfText } from '../../../src/core/inputs/pdf-text';
import { DeflateBits } from '../../helpers/deflate-bits';
import { pdfWithContent } from '../../helpers/pdf';
import { encryptedPdf } from '../../helpers/pdf-encrypted';

const TEXT = Buffer.from('BT /F1 12 Tf 72 720 Td (Deflated page says hello) Tj ET\n');
const PAST_BUDGET = PDF_STREAM_BUDGETS.maxStreamBytes + 1024 * 1024;

/** zlib data for a text line then spaces past one stream's budget (~33 KB for 33 MiB). */
function bomb(): Buffer {
  const big = Buffer.alloc(PAST_BUDGET, 0x20);
  TEXT.copy(big);
  return deflateSync(big, { level: 9 });
}

/** `data` with the zlib header CINFO 8 (a 64 KiB window): zlib refuses it, pdf.js's FlateStream does not. */
function cinfo8(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data);
  [out[0], out[1]] = [0x88, 0x1c];
  expect((((out[0] as number) << 8) + (out[1] as number)) % 31).toBe(0);
  return out;
}

async function failure(work: Promise<unknown>): Promise<ApiError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

afterEach(() => setPaceProbe(null));

describe('streams pdf.js inflates and zlib does not (issue 43 item 7)', () => {
  it('reads a stream whose zlib header says CINFO 8, as pdf.js does', async () => {
    const text = await pdfText(pdfWithContent(cinfo8(deflateSync(TEXT)), '/FlateDecode'), 'c8.pdf', 'p');
    expect(text).toContain('Deflated page says hello');
  });

  it('measures a CINFO 8 flate bomb: 400 file_too_large on the part, a slice at a time', async () => {
    let paces = 0;
    setPaceProbe({ onPace: () => paces++ });
    const err = await failure(
      pdfText(pdfWithContent(cinfo8(bomb()), '/FlateDecode'), 'c8.pdf', 'input[0].content[0].file_data'),
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe('file_too_large');
    expect(err.param).toBe('input[0].content[0].file_data');
    expect(err.message).toMatch(/'c8\.pdf' inflates to more than 32 MiB/);
    // pdf.js's decoder, re-run, makes 256 KiB a slice; the loop may turn after each.
    expect(paces).toBeGreaterThanOrEqual(PDF_STREAM_BUDGETS.maxStreamBytes / (256 * 1024));
  });

  it('measures a bomb that copies from before its start (zlib stops there, pdf.js goes on)', async () => {
    const w = new DeflateBits();
    w.bits(0b011, 3); // the final block, fixed codes
    for (const byte of TEXT) w.literal(byte);
    w.match258(32768); // 32 KiB back, before the output's start: zlib's "distance too far back"
    for (let n = 258; n < PAST_BUDGET; n += 258) w.match258(1);
    w.endOfBlock();
    const err = await failure(pdfText(pdfWithContent(w.zlib(), '/FlateDecode'), 'far.pdf', 'p'));
    expect(err.code).toBe('file_too_large');
  });

  it('refuses that copying in a stream inflated again (its bytes are not reproduced here)', async () => {
    const w = new DeflateBits();
    w.bits(0b011, 3);
    w.literal(0x78);
    w.literal(0x01); // a zlib header: this output is another layer
    w.match258(32768);
    w.endOfBlock();
    const err = await failure(
      pdfText(pdfWithContent(w.zlib(), '[/FlateDecode /FlateDecode]'), 'chain.pdf', 'p'),
    );
    expect(err.code).toBe('unsupported_file');
    expect(err.message).toMatch(/copies from before its own start/);
  });

  it('counts the Huffman tables pdf.js would fill: over-subscribed codes are 400 file_too_large', async () => {
    // Each block: 257 literal codes of 1 bit and one of 15 (an over-subscribed code zlib refuses):
    // ~50 bytes that make pdf.js fill 257 × 16 Ki table entries.
    const w = new DeflateBits();
    const blocks = 10;
    const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
    for (let b = 0; b < blocks; b++) {
      w.bits((b === blocks - 1 ? 1 : 0) | (2 << 1), 3);
      w.bits(31, 5); // 288 literal/length codes
      w.bits(0, 5); // 1 distance code
      w.bits(15, 4); // 19 code length codes
      for (const s of order) w.bits(s === 1 ? 1 : s === 0 || s === 15 ? 2 : 0, 3);
      // Code length codes: 1 is `0`, 0 is `10`, 15 is `11`.
      for (let v = 0; v < 288; v++) v <= 256 ? w.code(0, 1) : v < 287 ? w.code(2, 2) : w.code(3, 2);
      w.code(0, 1); // the distance code: 1 bit
      w.bits(0, 1); // end of block
    }
    const data = w.zlib();
    expect(data.byteLength).toBeLessThan(1024);
    expect(blocks * 257 * 16384).toBeGreaterThan(PDF_STREAM_BUDGETS.maxTableEntries);
    const err = await failure(pdfText(pdfWithContent(data, '/FlateDecode'), 'tables.pdf', 'p'));
    expect(err.code).toBe('file_too_large');
    expect(err.message).toMatch(/Huffman-table entries/);
  });
});

describe('an encrypted PDF (issue 43 item 7)', () => {
  it('is refused before pdf.js decrypts and inflates it: 400 unsupported_file on the part', async () => {
    for (const key of ['/Encrypt', '/Encr#79pt']) {
      const err = await failure(
        pdfText(encryptedPdf(bomb(), '/FlateDecode', key), 'rc4.pdf', 'input[0].content[0].file_data'),
      );
      expect(err.status, key).toBe(400);
      expect(err.code, key).toBe('unsupported_file');
      expect(err.param, key).toBe('input[0].content[0].file_data');
      expect(err.message, key).toMatch(/'rc4\.pdf' is encrypted/);
    }
  });
});

describe('filters spelt with the whitespace pdf.js reads (NUL, form feed)', () => {
  it('refuses LZW after a NUL, and a name a NUL ends', async () => {
    for (const filter of ['\u0000/LZWDecode', '/LZWDecode\u0000', '\f/RL']) {
      const err = await failure(pdfText(pdfWithContent(TEXT, filter), 'f.pdf', 'p'));
      expect(err.code, JSON.stringify(filter)).toBe('unsupported_file');
      expect(err.message).toMatch(/stream filter intab does not read/);
    }
  });
});
