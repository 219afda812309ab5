import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import { checkPdfStreams } from '../../../src/core/inputs/pdf-streams';
import { PDF_BUDGETS, pdfText } from '../../../src/core/inputs/pdf-text';
import { countPaceCalls } from '../../helpers/pace-count';
import { makePdf, THREE_PAGES } from '../../helpers/pdf';

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err as ApiError,
  );

describe('pdfText', () => {
  it('reads every page, in order, as --- page N --- blocks', async () => {
    const text = await pdfText(makePdf(THREE_PAGES), 'three.pdf', 'p');
    expect(text).toBe(THREE_PAGES.map((t, i) => `--- page ${i + 1} ---\n${t}`).join('\n\n'));
  });

  it('keeps an empty block for a page without text among pages with text', async () => {
    const text = await pdfText(makePdf(['one', null]), undefined, 'p');
    expect(text).toBe('--- page 1 ---\none\n\n--- page 2 ---\n');
  });

  it('refuses a PDF with no text layer at all (scanned) as unsupported_file, naming it', async () => {
    const err = await failure(pdfText(makePdf([null, null]), 'scan.pdf', 'input[0].content[1].file_data'));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 400,
      code: 'unsupported_file',
      param: 'input[0].content[1].file_data',
    });
    expect(err.message).toMatch(/'scan\.pdf' has no text layer: it looks scanned/);
  });

  it('refuses bytes that are no PDF, and a PDF over the page budget before reading a page', async () => {
    const junk = await failure(pdfText(new TextEncoder().encode('%PDF-1.4 nothing else'), 'x.pdf', 'p'));
    expect(junk).toMatchObject({ status: 400, code: 'unsupported_file' });
    expect(junk.message).toMatch(/could not be read: it is not a valid PDF/);
    const pages = Array.from({ length: PDF_BUDGETS.maxPages + 1 }, () => 'x');
    const pdf = makePdf(pages);
    const { value: long, calls } = await countPaceCalls(() => failure(pdfText(pdf, 'long.pdf', 'p')));
    expect(long).toMatchObject({ status: 400, code: 'file_too_large', param: 'p' });
    expect(long.message).toMatch(`above the limit of ${PDF_BUDGETS.maxPages} pages`);
    // Refused on the page count: no page is read (each page read is one paced step; issue 38: counted).
    // The only paced steps are the compressed-stream scan's, which runs before pdf.js opens the file.
    const { calls: scanCalls } = await countPaceCalls(() => checkPdfStreams(pdf, 'long.pdf', 'p'));
    expect(calls).toBe(scanCalls);
  });
});

describe('pdfText pacing', () => {
  // 100 pages of 40 lines: about 3 ms a page on an idle machine. Unpaced, the whole document is one
  // stretch of the worker's loop (~300 ms); paced, a page at a time. Counted, not timed (issue 38):
  // one call to pace() per page, which yields once the turn is long.
  it('reads a 100-page PDF a page at a time, with a chance to yield before each page', async () => {
    const line = 'The quick brown fox jumps over the lazy dog, page by page.';
    const pages = Array.from({ length: 100 }, (_, n) =>
      Array.from({ length: 40 }, () => `${n} ${line}`).join('\n'),
    );
    const { value, calls } = await countPaceCalls(() => pdfText(makePdf(pages), 'long.pdf', 'p'));
    expect(value.split('--- page ').length - 1).toBe(100);
    expect(value).toContain(`--- page 100 ---\n99 ${line}\n99 ${line}`);
    expect(calls).toBeGreaterThanOrEqual(100);
  });
});
