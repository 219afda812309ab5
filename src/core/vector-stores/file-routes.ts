import * as z from 'zod/mini';
import { clip, invalidRequest, notFound } from '../../common/api-error';
import type { StoredVectorStoreFile } from '../../store/vector-stores';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { parseOrThrow } from '../validation/params';
import { POLL_AFTER_MS } from './budgets';
import { pageOf } from './paging';
import { attributesSchema, chunkingSchema, fileIdSchema } from './params';
import type { VectorStoreSurface } from './surface';
import { toVectorStoreFile } from './wire';

const createSchema = z.strictObject({
  file_id: fileIdSchema,
  attributes: z.nullish(attributesSchema),
  chunking_strategy: z.nullish(chunkingSchema),
});
const updateSchema = z.strictObject({ attributes: z.nullable(attributesSchema) });
const STATUSES = ['in_progress', 'completed', 'failed', 'cancelled'] as const;

/**
 * A file object's answer: while it is `in_progress`, `openai-poll-after-ms` tells the SDK's polling
 * helpers (`createAndPoll`, `uploadAndPoll`) to ask again soon rather than after their default 5 s.
 */
export function fileResponse(file: StoredVectorStoreFile): Response {
  const headers: Record<string, string> =
    file.status === 'in_progress' ? { 'openai-poll-after-ms': String(POLL_AFTER_MS) } : {};
  return jsonResponse(toVectorStoreFile(file), 200, headers);
}

/** `POST /v1/vector_stores/{id}/files`: attaches the file (again: re-indexed) and queues its indexing. */
export async function createVectorStoreFile(
  request: Request,
  id: string,
  s: VectorStoreSurface,
): Promise<Response> {
  const body = parseOrThrow(createSchema, await readJsonObject(request, s.deps.maxBodyBytes));
  const store = await s.mustGet(id);
  const [file] = await s.prepareFiles(
    id,
    [
      {
        fileId: body.file_id,
        attributes: body.attributes ?? null,
        chunking: body.chunking_strategy,
        param: 'file_id',
      },
    ],
    null,
  );
  if (!file || !(await s.vs.addFiles(id, [file]))) await s.mustGet(id);
  s.startIndexing(store, [file as StoredVectorStoreFile]);
  return fileResponse(file as StoredVectorStoreFile);
}

/** `GET /v1/vector_stores/{id}/files` (`filter` by status, cursor params). */
export async function listVectorStoreFiles(
  url: URL,
  id: string,
  s: VectorStoreSurface,
  batchId?: string,
): Promise<Response> {
  await s.mustGet(id);
  const filter = statusFilter(url);
  const files = (await s.vs.listFiles(id)).filter(
    (f) => (!filter || f.status === filter) && (batchId === undefined || f.batchId === batchId),
  );
  return jsonResponse(pageOf(files.map(toVectorStoreFile), url));
}

/** `GET /v1/vector_stores/{id}/files/{file_id}`. */
export async function getVectorStoreFile(
  id: string,
  fileId: string,
  s: VectorStoreSurface,
): Promise<Response> {
  return fileResponse(await mustGetFile(s, id, fileId));
}

/** `POST /v1/vector_stores/{id}/files/{file_id}`: replaces its `attributes`. */
export async function updateVectorStoreFile(
  request: Request,
  id: string,
  fileId: string,
  s: VectorStoreSurface,
): Promise<Response> {
  const body = parseOrThrow(updateSchema, await readJsonObject(request, s.deps.maxBodyBytes));
  const updated = await s.vs.updateFileAttributes(id, fileId, body.attributes);
  return fileResponse(updated ?? (await mustGetFile(s, id, fileId)));
}

/** `DELETE /v1/vector_stores/{id}/files/{file_id}`: detaches it (the file itself stays in the Files API). */
export async function deleteVectorStoreFile(
  id: string,
  fileId: string,
  s: VectorStoreSurface,
): Promise<Response> {
  s.ingest.abort(id, [fileId]);
  if (!(await s.vs.deleteFile(id, fileId))) await mustGetFile(s, id, fileId);
  return jsonResponse({ id: fileId, object: 'vector_store.file.deleted', deleted: true });
}

/**
 * `GET /v1/vector_stores/{id}/files/{file_id}/content`: the file's parsed text, as one text item
 * (its chunks overlap, so they would repeat it); the chunks when the file can no longer be read.
 */
export async function vectorStoreFileContent(
  id: string,
  fileId: string,
  s: VectorStoreSurface,
): Promise<Response> {
  const file = await mustGetFile(s, id, fileId);
  let texts: string[] = [];
  if (file.status === 'completed') {
    const content = await s.deps.readFile?.(fileId, 'file_id').catch(() => null);
    const parsed = content ? await s.extractText(content) : null;
    texts = parsed?.ok ? [parsed.text] : await s.vs.readChunks(id, fileId);
  }
  return jsonResponse({
    object: 'vector_store.file_content.page',
    data: texts.map((text) => ({ type: 'text', text })),
    has_more: false,
    next_page: null,
  });
}

async function mustGetFile(
  s: VectorStoreSurface,
  id: string,
  fileId: string,
): Promise<StoredVectorStoreFile> {
  await s.mustGet(id);
  const file = await s.vs.getFile(id, fileId);
  if (!file) throw notFound(`No file found with id '${clip(fileId)}' in vector store '${clip(id)}'.`);
  return file;
}

function statusFilter(url: URL): StoredVectorStoreFile['status'] | undefined {
  const raw = url.searchParams.get('filter');
  if (raw === null) return undefined;
  if ((STATUSES as readonly string[]).includes(raw)) return raw as StoredVectorStoreFile['status'];
  throw invalidRequest(
    'filter',
    `Invalid value: '${clip(raw)}'. Supported values are: 'in_progress', 'completed', 'failed' and 'cancelled'.`,
    'invalid_value',
  );
}
