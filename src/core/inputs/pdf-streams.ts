/**
 * A PDF's compressed streams, measured before pdf.js reads them (issue 38 §3.1, issue 43 item 7).
 * pdf.js inflates a stream synchronously on the thread that calls it, the engine worker every tab
 * shares: a 1 MB flate bomb that inflates to 1 GiB held that thread for seconds and its memory for as
 * long. So every stream pdf.js would inflate is first inflated here both ways pdf.js may (the
 * platform's `DecompressionStream`, and pdf.js's own lenient decoder: `pdf-stream-measure.ts`), a
 * slice at a time (the loop turns between slices), counting the bytes that come out and giving up
 * past {@link PDF_STREAM_BUDGETS}. Nothing inflated is kept, but a layer that a filter chain inflates
 * again (at most {@link PDF_STREAM_BUDGETS.maxStreamBytes}).
 *
 * Found by the `stream` keyword in the raw bytes, as pdf.js's own repair scan finds them, whatever
 * the xref table or the stream's `/Filter` say, and taken when their first bytes are a zlib header
 * by pdf.js's rule (any window size). Filters that amplify and that this scan does not measure (LZW,
 * RunLength, and the ASCII encodings that can hide a flate layer) are refused, as are encrypted PDFs
 * (pdf.js decrypts, then inflates: the scan would measure ciphertext).
 */
import { invalidRequest } from '../../common/api-error';
import { pace } from '../../common/pace';
import { acceptsFlateHeader, Budget, measureStream, type StreamMeasure } from './pdf-stream-measure';

/** The most one PDF's compressed streams may inflate to, in one place. */
export const PDF_STREAM_BUDGETS = {
  /** Bytes one stream may inflate to (every layer of a chain counted). */
  maxStreamBytes: 32 * 1024 * 1024,
  /** Bytes all the PDF's streams may inflate to together, and compressed bytes read to measure them. */
  maxTotalBytes: 256 * 1024 * 1024,
  /** Streams that start with a zlib header pdf.js accepts; a PDF of 500 pages has a few thousand. */
  maxStreams: 20_000,
  /** Layers of flate in one chain (`[/FlateDecode /FlateDecode …]`). */
  maxLayers: 4,
  /**
   * Huffman-table entries pdf.js's decoder fills, all streams together: honest zlib data fills about
   * one per 15 bytes it inflates (so ~17 Mi for the whole {@link maxTotalBytes}); an over-subscribed
   * code fills millions from a few bytes, and pdf.js would pay that on one thread.
   */
  maxTableEntries: 32 * 1024 * 1024,
} as const;

/** Filters refused: they amplify and are not measured here (names as written, abbreviations included). */
const UNMEASURED = new Set([
  'LZWDecode',
  'LZW',
  'RunLengthDecode',
  'RL',
  'ASCIIHexDecode',
  'AHx',
  'ASCII85Decode',
  'A85',
]);
/** pdf.js's lexer's whitespace (NUL and form feed too, not `\v`), and a character of a name. */
const WS = '[\\0\\t\\n\\f\\r ]';
const NAME_CHAR = '[^\\0\\t\\n\\f\\r /[\\]<>()%{}]';
/**
 * A `/Filter` entry and its value (a name, an array, or a reference), comments allowed between, as
 * pdf.js's lexer reads them. Only after the key: a bare name in binary stream data is no filter.
 */
const FILTER_ENTRY = new RegExp(
  `/Filter(?:${WS}|%[^\\r\\n]*)*(\\[[^\\]]*\\]|/${NAME_CHAR}+|\\d+${WS}+\\d+${WS}+R)`,
  'g',
);
const NAME = new RegExp(`/(${NAME_CHAR}+)`, 'g');
const REFERENCE = new RegExp(`\\d+${WS}+\\d+${WS}+R(?!${NAME_CHAR})`);
/**
 * The key of a security handler's dictionary, wherever it is (a trailer, an xref stream's
 * dictionary, an incremental update's), `#` escapes decoded; any name that starts so counts.
 */
const ENCRYPT = '/Encrypt';

/**
 * Resolves once every compressed stream of `bytes` is measured within {@link PDF_STREAM_BUDGETS};
 * else a 400 (`file_too_large` past a size, `unsupported_file` for a filter intab does not measure,
 * or an encrypted PDF).
 *
 * @example
 * await checkPdfStreams(bytes, "'report.pdf'", 'input[0].content[1].file_data');
 */
export async function checkPdfStreams(bytes: Uint8Array, name: string, param: string | null): Promise<void> {
  const { raw, names } = await readText(bytes);
  if (names.includes(ENCRYPT)) {
    // pdf.js decrypts (RC4, AES) with the empty user password, then inflates: the streams this scan
    // sees are ciphertext, and it does not decrypt.
    throw invalidRequest(
      param,
      `${name} is encrypted (it has an /Encrypt dictionary): intab does not read encrypted PDFs. Send it decrypted, or its text.`,
      'unsupported_file',
    );
  }
  const filter = unmeasuredFilter(names);
  if (filter !== null) {
    throw invalidRequest(
      param,
      `${name} uses a stream filter intab does not read (${filter}): only FlateDecode streams are measured before reading. Send its text instead.`,
      'unsupported_file',
    );
  }
  const measure = budgets(name, param);
  let streams = 0;
  for (let at = raw.indexOf('stream'); at >= 0; at = raw.indexOf('stream', at + 6)) {
    if (raw.startsWith('end', at - 3)) continue;
    const start = dataStart(raw, at + 6);
    // The header rule is pdf.js's, not zlib's: a window size zlib refuses (CINFO 8) pdf.js inflates.
    if (start < 0 || !acceptsFlateHeader(bytes[start], bytes[start + 1])) continue;
    if (++streams > PDF_STREAM_BUDGETS.maxStreams) {
      throw tooLarge(param, `${name} has more than ${PDF_STREAM_BUDGETS.maxStreams} compressed streams`);
    }
    await measureStream(bytes, start, dataEnd(raw, start), measure);
  }
}

function budgets(name: string, param: string | null): StreamMeasure {
  const { maxStreamBytes, maxTotalBytes, maxTableEntries, maxLayers } = PDF_STREAM_BUDGETS;
  return {
    stream: () =>
      new Budget(maxStreamBytes, () =>
        tooLarge(param, `A compressed stream of ${name} inflates to more than ${mib(maxStreamBytes)}`),
      ),
    total: new Budget(maxTotalBytes, () =>
      tooLarge(param, `${name}'s compressed streams inflate to more than ${mib(maxTotalBytes)} together`),
    ),
    tables: new Budget(maxTableEntries, () =>
      tooLarge(
        param,
        `${name}'s compressed streams make pdf.js fill more than ${maxTableEntries / (1024 * 1024)} Mi Huffman-table entries`,
      ),
    ),
    inexact: () =>
      invalidRequest(
        param,
        `${name} has a compressed stream that copies from before its own start and is then inflated again: intab does not read it. Send its text instead.`,
        'unsupported_file',
      ),
    maxLayers,
  };
}

/** Where the next `endstream` starts, less the end of line before it; the file's end if none. */
function dataEnd(raw: string, start: number): number {
  const at = raw.indexOf('endstream', start);
  if (at < 0) return raw.length;
  let end = at;
  if (end > start && raw.charCodeAt(end - 1) === 0x0a) end--;
  if (end > start && raw.charCodeAt(end - 1) === 0x0d) end--;
  return end;
}

/** Characters decoded between two chances for the loop to turn. */
const SLICE = 256 * 1024;

/**
 * The file as text, one UTF-16 unit per byte (windows-1252, so string offsets are byte offsets),
 * and the same with PDF names' `#xx` escapes decoded (for reading `/Filter`s). A slice at a time:
 * decoding 16 MiB at once held the loop for most of a second in Node.
 */
async function readText(bytes: Uint8Array): Promise<{ raw: string; names: string }> {
  const decoder = new TextDecoder('latin1');
  const parts: string[] = [];
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    parts.push(decoder.decode(bytes.subarray(at, at + SLICE)));
    await pace();
  }
  const raw = parts.join('');
  const named: string[] = [];
  for (let at = 0; at < raw.length; ) {
    let end = Math.min(raw.length, at + SLICE);
    // Never cut an escape: `#4` here and `C` in the next slice would decode as neither.
    if (end < raw.length) end -= raw[end - 1] === '#' ? 1 : raw[end - 2] === '#' ? 2 : 0;
    named.push(
      raw
        .slice(at, end)
        .replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    );
    at = end;
    await pace();
  }
  return { raw, names: named.join('') };
}

/** The first `/Filter` value this scan cannot measure (a refused filter, or one given by reference), or null. */
function unmeasuredFilter(names: string): string | null {
  for (const [, value = ''] of names.matchAll(FILTER_ENTRY)) {
    if (REFERENCE.test(value)) return 'by reference';
    for (const [, filter = ''] of value.matchAll(NAME)) if (UNMEASURED.has(filter)) return filter;
  }
  return null;
}

/** Where a stream's data starts: after the end of the `stream` keyword's line, as pdf.js skips it. */
function dataStart(raw: string, from: number): number {
  const lf = raw.indexOf('\n', from);
  const cr = raw.indexOf('\r', from);
  if (cr >= 0 && (lf < 0 || cr < lf)) return raw.charCodeAt(cr + 1) === 0x0a ? cr + 2 : cr + 1;
  return lf < 0 ? -1 : lf + 1;
}

function tooLarge(param: string | null, what: string): Error {
  return invalidRequest(
    param,
    `${what}, the most intab reads from one PDF (a compression bomb?). Send its text instead.`,
    'file_too_large',
  );
}

function mib(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}
