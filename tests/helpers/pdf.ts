/**
 * Test PDFs, built byte by byte (no PDF library in the loop that reads them): each page a line of
 * Helvetica text, or a filled square and no text at all (what a scanned page is to a text reader).
 * Importing this also gives Node 20 `Promise.withResolvers`, which pdf.js 6 needs (Node 22 has it).
 *
 * @example
 * const bytes = makePdf(['page one', 'page two', null]); // the third page has no text layer
 */

if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

/** Escapes a PDF literal string's delimiters. */
function pdfString(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

/**
 * A valid PDF 1.4 with one page per entry: a string is that page's text (ASCII, one line per
 * `\n`; keep lines under ~80 characters to stay on the page), null a page with a drawn square and no text. Offsets in the xref table are exact, so pdf.js reads it without repair.
 *
 * @example
 * const scanned = makePdf([null, null]);
 */
export function makePdf(pages: (string | null)[]): Uint8Array<ArrayBuffer> {
  const objects: string[] = [];
  const kids = pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ');
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pages.forEach((text, i) => {
    // One text line per '\n'-separated line, 14 pt apart (text past the page's edge is no text to pdf.js).
    const lines = (text ?? '').split('\n').map((line) => `(${pdfString(line)}) Tj 0 -14 Td`);
    const content =
      text === null ? '0 0 1 rg 72 72 300 300 re f' : `BT /F1 12 Tf 72 720 Td ${lines.join(' ')} ET`;
    objects[4 + i * 2] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`;
    objects[5 + i * 2] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let n = 1; n < objects.length; n++) {
    offsets[n] = out.length;
    out += `${n} 0 obj\n${objects[n]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let n = 1; n < objects.length; n++) out += `${String(offsets[n]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** The three-page text PDF the PDF tests send, and the text each page must bring into the prompt. */
export const THREE_PAGES = ['Alpha page says apples', 'Beta page says bananas', 'Gamma page says cherries'];

/** A one-page PDF whose content stream is `data` under `filter` (xref offsets exact). */
export function pdfWithContent(data: Uint8Array, filter: string, length = data.byteLength): Uint8Array {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const push = (b: Buffer) => {
    parts.push(b);
    size += b.byteLength;
  };
  push(Buffer.from('%PDF-1.4\n'));
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>',
    Buffer.concat([
      Buffer.from(`<< /Length ${length} ${filter ? `/Filter ${filter}` : ''} >>\nstream\n`),
      Buffer.from(data),
      Buffer.from('\nendstream'),
    ]),
  ];
  objects.forEach((o, i) => {
    offsets.push(size);
    push(Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(o), Buffer.from('\nendobj\n')]));
  });
  const xref = size;
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) tail += `${String(o).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  push(Buffer.from(tail));
  return new Uint8Array(Buffer.concat(parts));
}
