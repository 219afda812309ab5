import { deflateRawSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import { PDF_STREAM_BUDGETS } from '../../../src/core/inputs/pdf-streams';
import { pdfText } from '../../../src/core/inputs/pdf-text';
import { pdfWithContent } from '../../helpers/pdf';

const TEXT = Buffer.from('BT /F1 12 Tf 72 720 Td (Deflated page says hello) Tj ET');
/** Content that inflates past one stream's budget: a text line, then spaces. */
function bomb(): Buffer {
  const big = Buffer.alloc(PDF_STREAM_BUDGETS.maxStreamBytes + 1024 * 1024, 0x20);
  TEXT.copy(big);
  return deflateSync(big, { level: 9 });
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

async function failure(work: Promise<unknown>): Promise<ApiError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('a PDF whose streams inflate without bound (issue 38 §3.1)', () => {
  it('still reads a PDF whose content stream is deflated', async () => {
    const text = await pdfText(pdfWithContent(deflateSync(TEXT), '/FlateDecode'), 'ok.pdf', 'p');
    expect(text).toContain('Deflated page says hello');
  });

  it('refuses a flate bomb before pdf.js inflates it: 400 file_too_large on the part', async () => {
    const data = bomb();
    expect(data.byteLength).toBeLessThan(1024 * 1024);
    const err = await failure(
      pdfText(pdfWithContent(data, '/FlateDecode'), 'bomb.pdf', 'input[0].content[0].file_data'),
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe('file_too_large');
    expect(err.param).toBe('input[0].content[0].file_data');
    expect(err.message).toMatch(/'bomb\.pdf' inflates to more than 32 MiB/);
  });

  it('measures every layer of a flate chain, and a filter name spelt with # escapes', async () => {
    const twice = deflateSync(bomb());
    const err = await failure(
      pdfText(pdfWithContent(twice, '[/Fl#61teDecode /FlateDecode]'), 'two.pdf', 'p'),
    );
    expect(err.code).toBe('file_too_large');
  });

  it('measures past an `endstream` hidden in the compressed data (pdf.js trusts /Length)', async () => {
    // A stored block that holds the keyword literally, then the bomb as the final deflate blocks.
    const head = Buffer.concat([TEXT, Buffer.from('\nendstream\n')]);
    const rest = Buffer.alloc(PDF_STREAM_BUDGETS.maxStreamBytes + 1024 * 1024, 0x20);
    const len = Buffer.alloc(4);
    len.writeUInt16LE(head.byteLength, 0);
    len.writeUInt16LE(~head.byteLength & 0xffff, 2);
    const whole = Buffer.concat([head, rest]);
    const check = Buffer.alloc(4);
    check.writeUInt32BE(adler32(whole), 0);
    const data = Buffer.concat([Buffer.from([0x78, 0x01, 0x00]), len, head, deflateRawSync(rest), check]);
    expect(data.includes('endstream')).toBe(true);
    const err = await failure(pdfText(pdfWithContent(data, '/FlateDecode'), 'hid.pdf', 'p'));
    expect(err.code).toBe('file_too_large');
  });

  it('reads a PDF whose data merely holds those names (only a /Filter entry counts)', async () => {
    const content = Buffer.from('BT /F1 12 Tf 72 720 Td (Names /RL /LZW /A85 in text) Tj ET % /AHx\n');
    const text = await pdfText(pdfWithContent(deflateSync(content), '/FlateDecode'), 'n.pdf', 'p');
    expect(text).toContain('Names /RL /LZW /A85 in text');
    const raw = await pdfText(pdfWithContent(content, ''), 'raw.pdf', 'p');
    expect(raw).toContain('Names /RL');
  });

  it('refuses filters it does not measure (LZW, RunLength, ASCII encodings), however spelt', async () => {
    for (const filter of [
      '/LZWDecode',
      '/RL',
      '[/AHx /FlateDecode]',
      '/A#53CII85Decode',
      '7 0 R',
      '%c\n/LZWDecode',
      '[7 0 R]',
    ]) {
      const err = await failure(pdfText(pdfWithContent(TEXT, filter), 'f.pdf', 'p'));
      expect(err.code, filter).toBe('unsupported_file');
      expect(err.message, filter).toMatch(/stream filter intab does not read/);
    }
  });
});
