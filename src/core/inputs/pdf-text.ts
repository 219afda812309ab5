/**
 * A PDF's text, page by page, with pdf.js (pdfjs-dist, Apache-2.0). Local models read text, so a PDF
 * `input_file` becomes `--- page N ---` blocks of its text layer; page images are not sent (OpenAI
 * sends both to vision models). pdf.js is loaded on the first PDF only: a page that never sends one
 * downloads none of it.
 */
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ApiError, clip, invalidRequest } from '../../common/api-error';
import { importLazy } from '../../common/lazy-assets';
import { pace } from '../../common/pace';
import { checkPdfStreams } from './pdf-streams';

/** The most one PDF may cost, in one place. */
export const PDF_BUDGETS = {
  /** Pages read from one PDF; a longer one is a 400 before any page is read. */
  maxPages: 500,
  /** Characters of text one PDF may bring into the prompt (about 250k tokens). */
  maxChars: 1_000_000,
  /** Wall-clock time to read one PDF, however it is built. */
  maxMs: 30_000,
} as const;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | null = null;

/**
 * pdf.js, imported once. The legacy build: it also runs in Node 20 (tests), and is ~5% bigger than
 * the modern one. Its parser runs on this thread (pdf.js's "fake worker"): importing the worker
 * module sets `globalThis.pdfjsWorker`, which pdf.js then uses instead of starting a Worker from a
 * URL. Nothing is fetched from elsewhere, so it works offline and from the service worker's precache.
 * Text extraction is a few ms a page, and each page is its own step (see {@link pdfText}).
 */
function loadPdfJs(): Promise<PdfJs> {
  // A failed load drops pdf.js's kept chunks, so the next PDF fetches them again.
  pdfjs ??= importLazy('pdfjs', async () => {
    // @ts-expect-error: pdf.js ships no types for its worker module (it only sets globalThis.pdfjsWorker).
    await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  });
  pdfjs.catch(() => {
    pdfjs = null;
  });
  return pdfjs;
}

/**
 * Whether bytes or a declared type say PDF: the `%PDF-` signature, or `application/pdf`.
 *
 * @example
 * isPdf(new TextEncoder().encode('%PDF-1.4 …')) // → true
 */
export function isPdf(bytes: Uint8Array): boolean {
  return (
    bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46 && bytes[4] === 0x2d
  );
}

/**
 * The text of a PDF as the model reads it: `--- page N ---` then the page's text, for every page.
 * pdf.js 6 never evaluates a PDF as code (a file is data). Bounded by
 * {@link PDF_BUDGETS} and, before pdf.js sees it, by its streams' inflated size
 * ({@link checkPdfStreams}); a PDF without any text (scanned pages are images) is a 400 `unsupported_file`
 * on `param`, as is one that cannot be parsed.
 *
 * @example
 * const text = await pdfText(bytes, 'report.pdf', 'input[0].content[1].file_data');
 */
export async function pdfText(
  bytes: Uint8Array,
  filename: string | undefined,
  param: string | null,
): Promise<string> {
  const name = filename ? `'${clip(filename)}'` : 'the PDF';
  if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
    // Node 20 (intab/core outside a browser): pdf.js 6 would fail midway with a TypeError.
    throw invalidRequest(
      param,
      `${capital(name)} cannot be read in this runtime: pdf.js needs Promise.withResolvers (Node 22 or a current browser). Send its text instead.`,
      'unsupported_file',
    );
  }
  // pdf.js inflates on this thread without a bound: measure its streams first (a flate bomb is a 400).
  await checkPdfStreams(bytes, capital(name), param);
  const lib = await loadPdfJs();
  const task: PDFDocumentLoadingTask = lib.getDocument({
    // pdf.js may transfer the buffer it is given: a copy keeps the caller's bytes whole.
    data: bytes.slice(),
    // No `isEvalSupported: false`: pdf.js 6 dropped the option with the code behind it (its builds
    // hold no `eval(` or `new Function`), so a PDF's functions are always interpreted, never compiled.
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: lib.VerbosityLevel.ERRORS,
  });
  const deadline = Date.now() + PDF_BUDGETS.maxMs;
  try {
    const doc = await withinDeadline(task.promise, deadline, name, param);
    if (doc.numPages > PDF_BUDGETS.maxPages) {
      throw invalidRequest(
        param,
        `${capital(name)} has ${doc.numPages} pages, above the limit of ${PDF_BUDGETS.maxPages} pages per PDF. Split it, or send the pages you need.`,
        'file_too_large',
      );
    }
    return await pagesText(doc, deadline, name, param);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const why =
      err instanceof Error && err.name === 'PasswordException' ? 'it is encrypted' : 'it is not a valid PDF';
    throw invalidRequest(param, `${capital(name)} could not be read: ${why}.`, 'unsupported_file');
  } finally {
    await task.destroy().catch(() => {});
  }
}

async function pagesText(
  doc: PDFDocumentProxy,
  deadline: number,
  name: string,
  param: string | null,
): Promise<string> {
  const blocks: string[] = [];
  let chars = 0;
  let anyText = false;
  for (let n = 1; n <= doc.numPages; n++) {
    // Each page is one step of the worker every tab shares: let the loop turn between them.
    await pace();
    const page = await withinDeadline(doc.getPage(n), deadline, name, param);
    const content = await withinDeadline(page.getTextContent(), deadline, name, param);
    let text = '';
    for (const item of content.items) {
      if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
    }
    page.cleanup();
    text = text.trim();
    chars += text.length;
    if (chars > PDF_BUDGETS.maxChars) {
      throw invalidRequest(
        param,
        `${capital(name)} has more than ${PDF_BUDGETS.maxChars} characters of text, the most one PDF may bring into a prompt. Send the pages you need.`,
        'file_too_large',
      );
    }
    anyText ||= text.length > 0;
    blocks.push(`--- page ${n} ---\n${text}`);
  }
  if (!anyText) {
    throw invalidRequest(
      param,
      `${capital(name)} has no text layer: it looks scanned (its pages are images), and intab reads a PDF's text only. Run OCR on it first, or send its text as input_text.`,
      'unsupported_file',
    );
  }
  return blocks.join('\n\n');
}

/** `work`, or a 400 once `deadline` passes: a PDF built to take forever costs its budget, no more. */
async function withinDeadline<T>(
  work: Promise<T>,
  deadline: number,
  name: string,
  param: string | null,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          invalidRequest(
            param,
            `${capital(name)} took longer than ${PDF_BUDGETS.maxMs / 1000} s to read and was given up.`,
            'unsupported_file',
          ),
        ),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
