/**
 * The step before a request's items are translated for the engine: every file part becomes
 * something the translation reads synchronously. `file_url`s are read (see input-files.ts),
 * `file_id`s are read from `/v1/files`, and PDFs become their text.
 */
import type { ResponseItem } from 'openai/resources/responses/responses';
import { ApiError, invalidRequest } from '../../common/api-error';
import { base64ToBytes, bytesToBase64 } from '../../common/base64';
import { pace } from '../../common/pace';
import { IMAGE_FORMATS, imageMimeOf } from '../../engine/image-bytes';
import { fileMime, mimeOfName, PDF_MIME, TEXT_MIME } from '../files/file-types';
import type { FileContentReader, StoredFileContent } from '../hosted/contracts';
import { type FilePart, type FileUrlOptions, inlineFileUrls, READ_TEXT } from './input-files';
import { isPdf, pdfText } from './pdf-text';

/** How file parts are read: `file_url`s as {@link inlineFileUrls} reads them, `file_id`s through `readFile`. */
export interface FileInputOptions extends FileUrlOptions {
  /** Reads `/v1/files`; without it a `file_id` is a 400. */
  readFile?: FileContentReader;
}

type Part = FilePart & { type?: string; image_url?: string | null };

/**
 * {@link inlineFileUrls}, then: an `input_file.file_id` gets its file's text (and name), a PDF (by
 * id, `file_data` or `file_url`) its pages' text (`--- page N ---` blocks, see {@link pdfText}), both
 * carried to `fileText` under {@link READ_TEXT}; an `input_image.file_id` gets its image as a `data:`
 * `image_url`. Errors name the part's field
 * (`input[i].content[j].file_id`); items before `firstInput` are history and name none. Each file id
 * is read once per request. Returns new items; the stored ones keep their ids and URLs.
 *
 * @example
 * const readable = await resolveFileInputs(items, { fetchFile, origin, readFile }, firstInput);
 */
export async function resolveFileInputs(
  items: ResponseItem[],
  opts: FileInputOptions,
  firstInput: number,
): Promise<ResponseItem[]> {
  const inlined = await inlineFileUrls(items, opts, firstInput);
  const reads: FileReads = new Map();
  const out: ResponseItem[] = [];
  for (const [i, item] of inlined.entries()) {
    await pace();
    const parts = partsOf(item);
    if (!parts?.list.some(needsResolving)) {
      out.push(item);
      continue;
    }
    const list: unknown[] = [];
    for (const [j, p] of parts.list.entries()) {
      const at = i >= firstInput ? `input[${i - firstInput}].${parts.key}[${j}]` : null;
      list.push(needsResolving(p) ? await resolvePart(p as Part, at, opts, reads) : p);
    }
    out.push({ ...item, [parts.key]: list } as ResponseItem);
  }
  return out;
}

/** The parts of an item that may hold files: user-side message content and function outputs. */
function partsOf(item: ResponseItem): { key: string; list: unknown[] } | null {
  if (item.type === 'message' && item.role !== 'assistant' && Array.isArray(item.content)) {
    return { key: 'content', list: item.content as unknown[] };
  }
  if (item.type === 'function_call_output' && Array.isArray(item.output)) {
    return { key: 'output', list: item.output as unknown[] };
  }
  return null;
}

function needsResolving(raw: unknown): boolean {
  const p = raw as Part;
  if (p.type === 'input_image') return !p.image_url && typeof p.file_id === 'string';
  if (p.type !== 'input_file') return false;
  if (!p.file_data) return typeof p.file_id === 'string';
  return isPdfData(p.file_data, p.filename);
}

async function resolvePart(
  p: Part,
  at: string | null,
  opts: FileInputOptions,
  reads: FileReads,
): Promise<Part> {
  if (p.type === 'input_image') {
    const param = at && `${at}.file_id`;
    const stored = await readStored(p.file_id as string, param, opts, reads);
    const mime = imageMimeOf(stored.bytes);
    if (!mime) {
      throw invalidRequest(
        param,
        `The file '${stored.id}' (${stored.filename}) is not an image: expected ${IMAGE_FORMATS} data.`,
        'invalid_value',
      );
    }
    return { ...p, image_url: `data:${mime};base64,${bytesToBase64(stored.bytes)}` };
  }
  return readFilePart(p, at, opts, reads);
}

/** Per request: each file id's read, shared by every part that names it. */
export type FileReads = Map<string, Promise<StoredFileContent>>;

/**
 * One file part made readable by `fileText`: a `file_id` read from `/v1/files`, a PDF (by id or
 * `file_data`) read for its text; any other part comes back as it is. `at` is the part's param
 * (`…content[j]`, or a chat part's `…content[j].file`); null for history, whose errors name none.
 *
 * @example
 * const part = await readFilePart(p.file, `messages[0].content[1].file`, { origin, readFile }, new Map());
 */
export async function readFilePart<P extends FilePart>(
  p: P,
  at: string | null,
  opts: FileInputOptions,
  reads: FileReads,
): Promise<P> {
  if (!p.file_data && typeof p.file_id !== 'string') return p;
  if (p.file_data && !isPdfData(p.file_data, p.filename)) return p;
  if (!p.file_data) {
    const param = at && `${at}.file_id`;
    const stored = await readStored(p.file_id as string, param, opts, reads);
    const filename = p.filename ?? stored.filename;
    if (isPdf(stored.bytes))
      return { ...p, filename, [READ_TEXT]: await pdfText(stored.bytes, filename, param) };
    const mime = mimeOfName(filename) ?? 'text/plain';
    // A binary type keeps a data URL with no payload: the translation refuses it by its type, with a hint.
    if (!TEXT_MIME.test(mime)) return { ...p, filename, file_data: `data:${mime};base64,` };
    return { ...p, filename, [READ_TEXT]: await utf8Text(stored.bytes, param) };
  }
  const param = at && `${at}.${p.file_url ? 'file_url' : 'file_data'}`;
  let bytes: Uint8Array;
  try {
    bytes = dataBytes(p.file_data);
  } catch {
    throw invalidRequest(param, 'The PDF could not be decoded: expected base64 data.', 'invalid_value');
  }
  return { ...p, [READ_TEXT]: await pdfText(bytes, p.filename, param) };
}

async function readStored(
  fileId: string,
  param: string | null,
  opts: FileInputOptions,
  reads: FileReads,
): Promise<StoredFileContent> {
  const { readFile } = opts;
  if (!readFile) {
    throw invalidRequest(
      param,
      'This intab runtime keeps no files: send the content as file_data instead of a file_id.',
      'unsupported_value',
    );
  }
  let read = reads.get(fileId);
  if (!read) {
    // History parts name no param: their error says which file, not where.
    read = readFile(fileId, param ?? 'input').catch((err: unknown) => {
      if (param !== null || !(err instanceof ApiError)) throw err;
      throw new ApiError(err.status, err.type, err.code, null, err.message);
    });
    reads.set(fileId, read);
  }
  return read;
}

/** `data:[<mime>][;…][;base64],<payload>` or a bare base64 payload, as `fileText` reads them. */
const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*?)(;base64)?,/;

function isPdfData(fileData: string, filename: string | undefined): boolean {
  const m = DATA_URL.exec(fileData.slice(0, 512));
  const payload = m ? fileData.slice(m[0].length, m[0].length + 8) : fileData.slice(0, 8);
  // 'JVBERi0' is `%PDF-` in base64: a PDF sent as octet-stream (or with no type) is still a PDF.
  return fileMime(m?.[1] ?? '', filename) === PDF_MIME || payload.startsWith('JVBERi0');
}

function dataBytes(fileData: string): Uint8Array {
  const m = DATA_URL.exec(fileData.slice(0, 512));
  if (!m) return base64ToBytes(fileData);
  const payload = fileData.slice(m[0].length);
  if (m[3]) return base64ToBytes(payload);
  const text = decodeURIComponent(payload);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** UTF-8 text of a stored file, or the translation's 400 for bytes that are not. */
async function utf8Text(bytes: Uint8Array, param: string | null): Promise<string> {
  // A file near the body cap takes a few ms to decode: a turn of its own.
  await pace();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidRequest(param, 'The file could not be decoded as UTF-8 text.', 'invalid_value');
  }
}
