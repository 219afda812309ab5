import type { ResponseItem } from 'openai/resources/responses/responses';
import { type ApiError, clip, invalidRequest } from '../../common/api-error';
import { base64ToBytes, bytesToBase64 } from '../../common/base64';
import { pace } from '../../common/pace';
import { IMAGE_FORMATS, imageMimeOf } from '../../engine/image-bytes';
import { fileMime, TEXT_MIME } from '../files/file-types';
import { isApiPath } from '../http/api-paths';
import { DEFAULT_MAX_BODY_BYTES, readStreamCapped } from '../http/capped-read';

/** Reads a `file_url`; the runtime injects it (the engine worker's `fetch`), tests a fake. */
export type FileFetcher = (url: string) => Promise<Response>;

/** How `file_url` values are read: the fetcher, the app's origin, and the most bytes one file may bring. */
export interface FileUrlOptions {
  fetchFile?: FileFetcher;
  origin: string | null;
  /** Default {@link DEFAULT_MAX_BODY_BYTES}: a file read by URL may be no bigger than a request body. */
  maxBytes?: number;
}

/** An `input_file` part as the translation reads it. */
export interface FilePart {
  file_data?: string;
  file_url?: string;
  file_id?: string | null;
  filename?: string;
  /** The part's text, when the step before the translation has read it already. */
  [READ_TEXT]?: string;
}

/** Where a part carries text read before the translation; a symbol, so no request can set it. */
export const READ_TEXT: unique symbol = Symbol('intab.readText');

/**
 * The text of an `input_file` part. Local models read text only, so a binary type (PDF, images,
 * Office documents) is a 400 that says what to do instead; `param` names the part.
 *
 * @example
 * fileText({ file_data: 'data:text/plain;base64,aGk=', filename: 'a.txt' }, 'input[0].content[1]') // → '[file: a.txt]\nhi'
 */
export function fileText(p: FilePart, param: string): string {
  // Read before the translation (a PDF's pages, a file_id's text; see file-inputs.ts): no data URL.
  const read = p[READ_TEXT];
  if (read !== undefined) return p.filename ? `[file: ${p.filename}]\n${read}` : read;
  if (!p.file_data) {
    throw invalidRequest(
      param,
      'This intab runtime keeps no files to read a `file_id` from: send the content as `file_data` (or a data:, blob: or same-origin `file_url`).',
      'unsupported_value',
    );
  }
  const m = /^data:([^;,]*)((?:;[^;,]*)*?)(;base64)?,(.*)$/s.exec(p.file_data);
  const mime = fileMime(m?.[1] ?? '', p.filename);
  if (!TEXT_MIME.test(mime)) {
    const hint = mime.startsWith('image/')
      ? 'send images as input_image parts'
      : "convert the document to text (e.g. extract a PDF's text) and send it as input_text or a text/plain file";
    throw invalidRequest(
      `${param}.file_data`,
      `Unsupported file type '${mime}': intab reads text files only. Instead, ${hint}.`,
      'unsupported_file',
    );
  }
  const payload = m ? (m[4] ?? '') : p.file_data;
  const base64 = m ? Boolean(m[3]) : true;
  try {
    const text = base64 ? decodeBase64Utf8(payload) : decodeURIComponent(payload);
    return p.filename ? `[file: ${p.filename}]\n${text}` : text;
  } catch {
    throw invalidRequest(
      `${param}.file_data`,
      'The file could not be decoded as UTF-8 text.',
      'invalid_value',
    );
  }
}

function decodeBase64Utf8(payload: string): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(payload));
}

/**
 * Gives every `input_file` with a `file_url` (and no `file_data`) its content as a data URL, so the
 * translation can read it. `data:` URLs need nothing; `blob:` and same-origin URLs go through the
 * injected fetcher; any other URL is a 400, since the tab runs offline. Items before `firstInput`
 * are history: their errors name no `input[i]`. Returns new items; the stored ones keep the URL.
 *
 * @example
 * const readable = await inlineFileUrls(items, { fetchFile: fetch, origin: 'https://app.example' }, 0);
 */
export async function inlineFileUrls(
  items: ResponseItem[],
  opts: FileUrlOptions,
  firstInput: number,
): Promise<ResponseItem[]> {
  const out: ResponseItem[] = [];
  // One read per URL for the whole request: a body may name one blob thousands of times.
  const readImage = blobImageReader(opts);
  const reads = new Map<string, Promise<string>>();
  for (const [i, item] of items.entries()) {
    const parts =
      item.type === 'message' && item.role !== 'assistant'
        ? { key: 'content', list: item.content as unknown[] }
        : item.type === 'function_call_output' && Array.isArray(item.output)
          ? { key: 'output', list: item.output as unknown[] }
          : null;
    // Blob images of this request's own input only: an earlier turn's blob URL is likely revoked
    // by now, and its error would name no param (the engine still reads it, as before).
    const ownBlobImage = (p: unknown) => i >= firstInput && opts.fetchFile !== undefined && isBlobImage(p);
    // A long history is tens of thousands of items: let the loop turn between them.
    await pace();
    if (!parts?.list.some((p) => needsFetch(p) || ownBlobImage(p))) {
      out.push(item);
      continue;
    }
    const list = await Promise.all(
      parts.list.map(async (p, j) => {
        const at = `input[${i - firstInput}].${parts.key}[${j}]`;
        if (ownBlobImage(p)) {
          const part = p as { image_url: string };
          return { ...part, image_url: await readImage(part.image_url, `${at}.image_url`) };
        }
        if (!needsFetch(p)) return p;
        return inlinePart(p as FilePart, opts, i >= firstInput ? `${at}.file_url` : null, reads);
      }),
    );
    out.push({ ...item, [parts.key]: list } as ResponseItem);
  }
  return out;
}

function isBlobImage(p: unknown): boolean {
  const part = p as { type?: string; image_url?: unknown };
  return (
    part.type === 'input_image' && typeof part.image_url === 'string' && part.image_url.startsWith('blob:')
  );
}

/**
 * {@link readBlobImage} for one request: each URL is read once however many parts name it (issue 27:
 * a 900 KB body can name one 1 MB blob 15 000 times), and its failure is the 400 of the first part.
 *
 * @example
 * const read = blobImageReader({ fetchFile: fetch, origin });
 * const dataUrl = await read(blobUrl, 'input[0].content[1].image_url');
 */
export function blobImageReader(opts: FileUrlOptions): (raw: string, param: string) => Promise<string> {
  const reads = new Map<string, Promise<string>>();
  return (raw, param) => once(reads, raw, () => readBlobImage(raw, param, opts));
}

/** The promise `read()` made for `key` the first time it was asked for; later asks share it. */
function once<T>(reads: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
  let p = reads.get(key);
  if (!p) {
    p = read();
    reads.set(key, p);
  }
  return p;
}

/**
 * Reads a `blob:` image URL (one {@link checkImageUrl} let through) into a `data:` URL, while the
 * page still holds the blob. A blob may hold anything the page put there: what is not an image by
 * its bytes, or cannot be read (revoked), is a 400 `invalid_value` on `param` now, before the run,
 * not an engine failure mid-stream (or a picture of text handed to the model). Needs `fetchFile`.
 *
 * @example
 * const url = await readBlobImage(blobUrl, 'messages[0].content[1].image_url.url', { fetchFile: fetch, origin });
 */
export async function readBlobImage(raw: string, param: string, opts: FileUrlOptions): Promise<string> {
  const refuse = (why: string) => invalidRequest(param, `Invalid '${param}'. ${why}`, 'invalid_value');
  const res = opts.fetchFile ? await opts.fetchFile(raw).catch(() => null) : null;
  if (!res?.ok) throw refuse(`The image at '${clip(raw)}' could not be read (was its blob URL revoked?).`);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bytes = await readStreamCapped(res.body, maxBytes, () =>
    refuse(
      `The image at '${clip(raw)}' is larger than ${maxBytes} bytes, the most an image URL may bring in.`,
    ),
  );
  const mime = imageMimeOf(bytes);
  if (!mime) {
    const declared = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() || 'no type';
    throw refuse(
      `The blob at '${clip(raw)}' is not an image (${clip(declared)}, ${bytes.length} bytes): expected ${IMAGE_FORMATS} data.`,
    );
  }
  return `data:${mime};base64,${bytesToBase64(bytes)}`;
}

function needsFetch(p: unknown): boolean {
  const part = p as FilePart & { type?: string };
  return part.type === 'input_file' && !part.file_data && typeof part.file_url === 'string';
}

async function inlinePart(
  p: FilePart,
  opts: FileUrlOptions,
  param: string | null,
  reads: Map<string, Promise<string>>,
): Promise<FilePart> {
  const raw = p.file_url as string;
  if (raw.startsWith('data:')) return { ...p, file_data: raw };
  let url: URL;
  try {
    url = new URL(raw, opts.origin ?? undefined);
  } catch {
    throw invalidRequest(param, `Invalid file_url '${clip(raw)}'.`, 'invalid_value');
  }
  const local = url.protocol === 'blob:' || (opts.origin !== null && url.origin === opts.origin);
  if (!local) {
    throw invalidRequest(
      param,
      `intab runs offline and cannot download '${clip(url.href)}': a file_url must be a data:, blob: or same-origin URL. Send the file's content as file_data instead.`,
      'unsupported_value',
    );
  }
  const toApi = apiUrlRefusal(url, opts.origin, param);
  if (toApi) throw toApi;
  if (!opts.fetchFile) {
    throw invalidRequest(
      param,
      "This intab runtime cannot fetch file_url values: send the file's content as file_data (or a data: URL).",
      'unsupported_value',
    );
  }
  const fetched = await once(reads, url.href, () =>
    fetchFile(url, opts.fetchFile as FileFetcher, opts, param),
  );
  const filename = p.filename ?? url.pathname.split('/').pop() ?? undefined;
  return { ...p, filename: filename || undefined, file_data: fetched };
}

/** Reads one local `file_url` (checked by {@link inlinePart}) into a data URL, capped at `opts.maxBytes`. */
async function fetchFile(
  url: URL,
  fetcher: FileFetcher,
  opts: FileUrlOptions,
  param: string | null,
): Promise<string> {
  const res = await fetcher(url.href).catch(() => null);
  if (!res?.ok) {
    throw invalidRequest(
      param,
      `The file at '${clip(url.href)}' could not be read (${res ? `HTTP ${res.status}` : 'network error'}).`,
      'invalid_value',
    );
  }
  // A same-origin URL that redirected into the API: the request went out, but its answer (stored
  // responses, say) must not reach the prompt.
  const redirectedToApi =
    res.redirected && res.url ? apiUrlRefusal(new URL(res.url), opts.origin, param) : null;
  if (redirectedToApi) {
    await res.body?.cancel().catch(() => {});
    throw redirectedToApi;
  }
  const mime = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() || 'application/octet-stream';
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bytes = await readStreamCapped(res.body, maxBytes, () =>
    invalidRequest(
      param,
      `The file at '${clip(url.href)}' is larger than ${maxBytes} bytes, the most a file_url may bring in. Send a smaller file.`,
      'file_too_large',
    ),
  );
  return `data:${mime};base64,${bytesToBase64(bytes)}`;
}

/**
 * The 400 for a `file_url` that points at intab's own API, `/v1/…` or a root alias (`/responses/…`),
 * else null (`blob:` paths are no routes). A file read there would make the engine call itself: read
 * stored responses into a prompt, or start a model load. The aliases are refused even when the
 * service worker leaves them to the app (the core cannot know), at the cost of those few app paths.
 */
function apiUrlRefusal(url: URL, origin: string | null, param: string | null): ApiError | null {
  if (url.protocol === 'blob:' || url.origin !== origin || !isApiPath(url.pathname)) return null;
  return invalidRequest(
    param,
    `A file_url cannot read intab's own API ('${clip(url.pathname)}'): send the file's content as file_data instead.`,
    'invalid_value',
  );
}

const IMAGE_DATA_EXAMPLE =
  "a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU=')";

/**
 * Refuses an image URL that is not an image on the web: only `https:`, `http:` and non-empty
 * `data:image/*` URLs pass (as on OpenAI), and never one of intab's own API routes on the app's
 * `origin` (a `/v1/...` image would have the engine fetch the API through the service worker). A
 * relative URL is no URL at all: nothing may resolve it against the page. One extension: a `blob:`
 * URL of the app's own origin, the image a page holds in memory (the engine reads it as data).
 * Errors are OpenAI's 400 `invalid_value` on `param`.
 *
 * @example
 * checkImageUrl('https://example.com/cat.png', 'input[0].content[1].image_url', origin); // ok
 * checkImageUrl('javascript:alert(1)', 'input[0].content[1].image_url', origin); // 400
 */
export function checkImageUrl(raw: string, param: string, origin: string | null): void {
  const refuse = (why: string) => invalidRequest(param, `Invalid '${param}'. ${why}`, 'invalid_value');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('Expected a valid URL, but got a value with an invalid format.');
  }
  if (url.protocol === 'data:') {
    // `data:[<mime>][;param…][;base64],<data>`, read with indexOf: the URL may be megabytes long.
    const href = url.href;
    const comma = href.indexOf(',');
    const head = href.slice('data:'.length, comma < 0 ? href.length : comma);
    const mime = (head.split(';')[0] ?? '').trim().toLowerCase();
    if (!mime.startsWith('image/'))
      throw refuse(`Expected ${IMAGE_DATA_EXAMPLE}, but got unsupported MIME type '${clip(mime)}'.`);
    if (comma < 0 || comma === href.length - 1)
      throw refuse(`Expected ${IMAGE_DATA_EXAMPLE}, but got an empty value.`);
    return;
  }
  if (url.protocol === 'blob:' && (origin === null || url.origin === origin)) return;
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refuse(
      `Expected an http or https URL or a base64-encoded data URL with an image MIME type, but got a URL with the scheme '${clip(url.protocol)}'.`,
    );
  if (origin !== null && url.origin === origin && isApiPath(url.pathname))
    throw refuse(`The URL points at this API (${clip(url.pathname)}): an image must come from elsewhere.`);
}
