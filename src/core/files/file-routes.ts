import type { FileDeleted, FileObject } from 'openai/resources/files';
import { ApiError, clip, invalidRequest, notFound } from '../../common/api-error';
import type { FileStore } from '../../store/files';
import type { ResponseStore } from '../../store/types';
import { jsonResponse } from '../http/json-body';
import { listBody, parseListParams } from '../http/list-params';
import { FILE_BUDGETS, newFileId, readUpload } from './file-upload';

/** What the `/v1/files` routes need from the server. */
export interface FileRouteDeps {
  store: ResponseStore;
  now: () => number;
  maxBodyBytes: number;
  /**
   * Runs after a file is deleted, before the DELETE is answered: the one place that removes it from
   * every vector store that holds it ("Delete a file and remove it from all vector stores").
   */
  onFileDeleted?: (fileId: string) => Promise<void>;
}

/**
 * OpenAI's 404 for a file id it does not know. Recorded wording (the openai-dotnet reference test
 * `FileDocs.RetrieveFile` asserts OpenAI's answer for `file-abc123`): HTTP 404, type
 * `invalid_request_error`, param `id`, no code, message `No such File object: file-abc123`.
 *
 * @example
 * throw noSuchFile('file-abc123');
 */
export function noSuchFile(id: string, param = 'id'): ApiError {
  return notFound(`No such File object: ${clip(id)}`, param);
}

function filesOf(store: ResponseStore): FileStore {
  if (!store.files) {
    throw new ApiError(501, 'server_error', 'files_unavailable', null, 'This intab store keeps no files.');
  }
  return store.files;
}

/**
 * `POST /v1/files` (multipart): stores the file and answers its `FileObject`. The body is capped at
 * `maxBodyBytes` (413), and the bytes count against the browser's storage quota (507).
 *
 * @example
 * const res = await createFile(request, deps);
 */
export async function createFile(request: Request, deps: FileRouteDeps): Promise<Response> {
  const files = filesOf(deps.store);
  const upload = await readUpload(request, deps.maxBodyBytes);
  const createdAt = Math.floor(deps.now() / 1000);
  const expiresAt = upload.expiresAfterSeconds === null ? null : createdAt + upload.expiresAfterSeconds;
  const file: FileObject = {
    id: newFileId(),
    object: 'file',
    bytes: upload.bytes.byteLength,
    created_at: createdAt,
    filename: upload.filename,
    purpose: upload.purpose as FileObject['purpose'],
    status: 'processed',
    ...(expiresAt === null ? {} : { expires_at: expiresAt }),
  };
  try {
    await files.put(
      { file, mimeType: upload.mimeType, expiresAt: expiresAt === null ? null : expiresAt * 1000 },
      upload.bytes,
    );
  } catch (err) {
    if (err instanceof ApiError && err.code === 'storage_quota_exceeded') {
      throw new ApiError(
        507,
        'server_error',
        'storage_quota_exceeded',
        null,
        `Browser storage is full: the file (${file.bytes} bytes) could not be saved because this site has used its IndexedDB quota. Delete old files or responses, free disk space, or clear this site’s data, then retry.`,
      );
    }
    throw err;
  }
  return jsonResponse(file);
}

/**
 * `GET /v1/files` (`after`, `limit`, `order` by `created_at`, default `desc`; `purpose`). Unlike other
 * lists, OpenAI's `limit` here is 1–10,000 with a default of 10,000 (its OpenAPI spec: "Limit can
 * range between 1 and 10,000, and the default is 10,000").
 */
export async function listFiles(deps: FileRouteDeps, url: URL): Promise<Response> {
  const params = { ...parseListParams(withoutLimit(url)), limit: fileListLimit(url) };
  const purpose = url.searchParams.get('purpose') ?? undefined;
  const page = await filesOf(deps.store).list({ ...params, purpose });
  if (!page) throw noSuchFile(params.after ?? '', 'after');
  return jsonResponse(listBody(page.data, page.hasMore));
}

function withoutLimit(url: URL): URL {
  const copy = new URL(url);
  copy.searchParams.delete('limit');
  return copy;
}

function fileListLimit(url: URL): number {
  const raw = url.searchParams.get('limit');
  const max = FILE_BUDGETS.maxListLimit;
  const limit = raw === null ? max : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw invalidRequest(
      'limit',
      `Invalid 'limit': expected an integer between 1 and ${max}, but got '${clip(String(raw))}'.`,
      'invalid_value',
    );
  }
  return limit;
}

/** `GET /v1/files/{id}`. */
export async function retrieveFile(deps: FileRouteDeps, id: string): Promise<Response> {
  const meta = await filesOf(deps.store).get(id);
  if (!meta) throw noSuchFile(id);
  return jsonResponse(meta.file);
}

/** `DELETE /v1/files/{id}`: the file, its bytes, and (through `onFileDeleted`) its vector store entries. */
export async function deleteFile(deps: FileRouteDeps, id: string): Promise<Response> {
  if (!(await filesOf(deps.store).delete(id))) throw noSuchFile(id);
  await deps.onFileDeleted?.(id);
  const deleted: FileDeleted = { id, object: 'file', deleted: true };
  return jsonResponse(deleted);
}

/**
 * `GET /v1/files/{id}/content`: the bytes as uploaded. Files are data: the headers forbid sniffing
 * and rendering (a sandboxed, script-less attachment), and the type is the uploaded one only where
 * that type never runs ({@link servedType}): a file uploaded as `text/javascript` would otherwise
 * load as a same-origin `<script>` or module and pass an app's `script-src 'self'` (issue 38 §3.4).
 */
export async function fileContent(deps: FileRouteDeps, id: string): Promise<Response> {
  const data = await filesOf(deps.store).read(id);
  if (!data) throw noSuchFile(id);
  return new Response(data.bytes as Uint8Array<ArrayBuffer>, {
    headers: dataHeaders(servedType(data.meta.mimeType), data.bytes.byteLength, data.meta.file.filename),
  });
}

/** Types a browser only ever shows or parses as data: no script, no style, no markup. */
const INERT_TYPES = new Set([
  'text/plain',
  'text/csv',
  'text/markdown',
  'application/json',
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/**
 * The type a stored file is served with: its declared type (parameters dropped) when that is in
 * {@link INERT_TYPES}, else `application/octet-stream`.
 *
 * @example
 * servedType('text/javascript') // → 'application/octet-stream'
 * servedType('image/png') // → 'image/png'
 */
export function servedType(declared: string): string {
  const base = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  return INERT_TYPES.has(base) ? base : 'application/octet-stream';
}

/** Headers for stored bytes served from the app's origin (files, container files): data, never a page. */
export function dataHeaders(type: string, length: number, filename: string): Record<string, string> {
  return {
    'content-type': type,
    'content-length': String(length),
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "sandbox; default-src 'none'",
  };
}
