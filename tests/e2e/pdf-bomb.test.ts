/**
 * A PDF flate bomb in real Chromium through the real service worker (issue 38 §3.1): the engine
 * worker measures the PDF's streams with the browser's own `DecompressionStream`, and with pdf.js's own
 * decoder re-run (issue 43 item 7), before pdf.js reads them, so the bomb is a 400 `file_too_large`
 * (an encrypted PDF a 400 `unsupported_file`) and the next request is answered; an honest deflated
 * PDF (its zlib data ending right before `endstream`, as Chromium's inflate wants) still reads.
 */
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDF_STREAM_BUDGETS } from '../../src/core/inputs/pdf-streams';
import { pdfWithContent } from '../helpers/pdf';
import { encryptedPdf } from '../helpers/pdf-encrypted';
import { type AppSession, openApp } from './harness';

let app: AppSession;
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const TEXT = Buffer.from('BT /F1 12 Tf 72 720 Td (Deflated page says hello) Tj ET');

/** Sends each PDF (base64) as `file_data` to `/v1/responses/input_tokens`; its status and error code. */
async function sendPdfs(pdfs: string[]): Promise<{ status: number; code: string | null }[]> {
  const out: { status: number; code: string | null }[] = [];
  for (const pdf of pdfs) {
    const res = await fetch('/v1/responses/input_tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'hi' },
              { type: 'input_file', filename: 'x.pdf', file_data: `data:application/pdf;base64,${pdf}` },
            ],
          },
        ],
      }),
    });
    const body = (await res.json()) as { error?: { code?: string } };
    out.push({ status: res.status, code: body.error?.code ?? null });
  }
  return out;
}

describe('a PDF flate bomb in the browser', () => {
  it('is refused before pdf.js inflates it; an honest deflated PDF reads, before and after', async () => {
    const big = Buffer.alloc(PDF_STREAM_BUDGETS.maxStreamBytes + 8 * 1024 * 1024, 0x20);
    TEXT.copy(big);
    const honest = b64(pdfWithContent(deflateSync(TEXT), '/FlateDecode'));
    const bomb = b64(pdfWithContent(deflateSync(big, { level: 9 }), '/FlateDecode'));
    // The same bomb with the zlib header CINFO 8, which Chromium's inflate refuses and pdf.js reads
    // (issue 43 item 7), and inside an RC4-encrypted PDF pdf.js opens with the empty password.
    const deflated = deflateSync(big, { level: 9 });
    const cinfo8 = Buffer.concat([Buffer.from([0x88, 0x1c]), deflated.subarray(2)]);
    const wide = b64(pdfWithContent(cinfo8, '/FlateDecode'));
    const encrypted = b64(encryptedPdf(deflated, '/FlateDecode'));
    const got = await app.page.evaluate(sendPdfs, [honest, bomb, wide, encrypted, honest]);
    expect(got).toEqual([
      { status: 200, code: null },
      { status: 400, code: 'file_too_large' },
      { status: 400, code: 'file_too_large' },
      { status: 400, code: 'unsupported_file' },
      { status: 200, code: null },
    ]);
  });
});
