import { pace } from '../../common/pace';
import type { VectorFileError } from '../../store/vector-stores';
import type { StoredFileContent } from '../hosted/contracts';
import { isPdf, pdfText } from '../inputs/pdf-text';

/** The text of a file, or why it has none a vector store can index. */
export type FileTextResult = { ok: true; text: string } | { ok: false; error: VectorFileError };

/** Turns a stored file into text for indexing; the default reads text files, a PDF reader can be passed. */
export type FileTextExtractor = (file: StoredFileContent) => Promise<FileTextResult>;

/** Extensions of formats that are not text; a reader for them may be plugged in (see {@link FileTextExtractor}). */
const BINARY = new Set([
  'pdf',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'bmp',
  'ico',
  'docx',
  'doc',
  'xlsx',
  'xls',
  'pptx',
  'ppt',
  'zip',
  'gz',
  'tar',
  '7z',
  'rar',
  'mp3',
  'mp4',
  'wav',
  'ogg',
  'webm',
  'wasm',
  'exe',
  'bin',
]);

/** Bytes decoded between two chances to yield. */
const DECODE_SLICE = 1 << 20;

/**
 * The text of a UTF-8 text file (any extension not known to be binary) or of a PDF's text layer. Other binary formats are
 * `unsupported_file`; bytes that are not UTF-8, or hold NUL bytes, are `invalid_file`; so is a file
 * with no text at all (it would index as nothing).
 *
 * @example
 * await readTextFile({ id: 'file-1', filename: 'a.md', purpose: 'assistants', bytes }) // → { ok: true, text }
 */
export const readTextFile: FileTextExtractor = async (file) => {
  const ext = file.filename.includes('.') ? (file.filename.split('.').pop() ?? '').toLowerCase() : '';
  if (ext === 'pdf' || isPdf(file.bytes)) return readPdf(file);
  if (BINARY.has(ext))
    return fail(
      'unsupported_file',
      `Files of type '.${ext}' cannot be indexed here: intab reads text files (UTF-8) into vector stores.`,
    );
  if (file.bytes.includes(0)) return fail('invalid_file', 'The file holds NUL bytes: it is not a text file.');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parts: string[] = [];
  try {
    for (let at = 0; at < file.bytes.byteLength; at += DECODE_SLICE) {
      parts.push(decoder.decode(file.bytes.subarray(at, at + DECODE_SLICE), { stream: true }));
      await pace();
    }
    parts.push(decoder.decode());
  } catch {
    return fail('invalid_file', 'The file is not valid UTF-8 text.');
  }
  const text = parts.join('');
  if (text.trim() === '') return fail('invalid_file', 'The file has no text to index.');
  return { ok: true, text };
};

/** A PDF's text layer, as `input_file` reads it; a scanned or unreadable PDF is `unsupported_file`. */
async function readPdf(file: StoredFileContent): Promise<FileTextResult> {
  try {
    return { ok: true, text: await pdfText(file.bytes, file.filename, null) };
  } catch (err) {
    return fail('unsupported_file', err instanceof Error ? err.message : String(err));
  }
}

function fail(code: VectorFileError['code'], message: string): FileTextResult {
  return { ok: false, error: { code, message } };
}
