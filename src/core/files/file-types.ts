/**
 * What a file is, from its declared media type or its name: whether intab reads it as text, and the
 * type `GET /v1/files/{id}/content` answers with.
 */

/** Media types read as text. */
export const TEXT_MIME =
  /^(text\/|application\/(json|xml|javascript|x-ndjson|csv|yaml|x-yaml|toml|sql|x-sh))/;

/** The PDF media type: read by text extraction (see pdf-text.ts). */
export const PDF_MIME = 'application/pdf';

/** Extensions that say "text" or "binary" when the data URL does not (raw base64, octet-stream). */
const EXTENSION_MIME: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  json: 'application/json',
  jsonl: 'application/x-ndjson',
  xml: 'application/xml',
  js: 'application/javascript',
  ts: 'text/plain',
  py: 'text/plain',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  pdf: PDF_MIME,
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip',
};

/**
 * The media type implied by a file name's extension, or undefined.
 *
 * @example
 * mimeOfName('report.PDF') // → 'application/pdf'
 */
export function mimeOfName(filename: string | undefined): string | undefined {
  return EXTENSION_MIME[filename?.split('.').pop()?.toLowerCase() ?? ''];
}

/**
 * A part's media type: the declared one, unless it is missing or `application/octet-stream`, then
 * the name's, then `text/plain` (what a bare base64 payload most often is).
 *
 * @example
 * fileMime('', 'notes.md') // → 'text/markdown'
 */
export function fileMime(declared: string, filename: string | undefined): string {
  if (declared && declared !== 'application/octet-stream') return declared.toLowerCase();
  return mimeOfName(filename) ?? 'text/plain';
}
