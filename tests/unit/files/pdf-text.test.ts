import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import { PDF_BUDGETS, pdfText } from '../../../src/core/plumbing/pdf-text';
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
    const t0 = performance.now();
    const long = await failure(pdfText(makePdf(pages), 'long.pdf', 'p'));
    expect(long).toMatchObject({ status: 400, code: 'file_too_large', param: 'p' });
    expect(long.message).toMatch(`above the limit of ${PDF_BUDGETS.maxPages} pages`);
    // Refused on the page count: no page is read (reading 501 pages takes seconds on this machine).
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
