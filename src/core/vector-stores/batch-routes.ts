import type { VectorStoreFileBatch } from 'openai/resources/vector-stores/file-batches';
import * as z from 'zod/mini';
import { clip, invalidRequest, notFound } from '../../common/api-error';
import type { StoredFileBatch } from '../../store/vector-stores';
import { newId } from '../http/ids';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { parseOrThrow } from '../validation/params';
import { MAX_BATCH_FILES, POLL_AFTER_MS } from './budgets';
import { listVectorStoreFiles } from './file-routes';
import { attributesSchema, chunkingSchema, fileIdSchema } from './params';
import type { AttachRequest, VectorStoreSurface } from './surface';
import { toFileBatch } from './wire';

const createSchema = z.strictObject({
  file_ids: z.optional(z.array(fileIdSchema).check(z.minLength(1)).check(z.maxLength(MAX_BATCH_FILES))),
  files: z.optional(
    z
      .array(
        z.strictObject({
          file_id: fileIdSchema,
          attributes: z.nullish(attributesSchema),
          chunking_strategy: z.nullish(chunkingSchema),
        }),
      )
      .check(z.minLength(1))
      .check(z.maxLength(MAX_BATCH_FILES)),
  ),
  attributes: z.nullish(attributesSchema),
  chunking_strategy: z.nullish(chunkingSchema),
});

/**
 * `POST /v1/vector_stores/{id}/file_batches`: `file_ids` (with the batch's `attributes` and
 * `chunking_strategy`) or `files[]` (each with its own), never both, at most 2000; every file is
 * checked before any is attached.
 */
export async function createFileBatch(
  request: Request,
  id: string,
  s: VectorStoreSurface,
): Promise<Response> {
  const body = parseOrThrow(createSchema, await readJsonObject(request, s.deps.maxBodyBytes));
  if ((body.file_ids === undefined) === (body.files === undefined))
    throw invalidRequest(
      body.files ? 'files' : 'file_ids',
      "Exactly one of 'file_ids' and 'files' must be given.",
      body.files ? 'invalid_value' : 'missing_required_parameter',
    );
  const store = await s.mustGet(id);
  const requests: AttachRequest[] = body.file_ids
    ? body.file_ids.map((fileId, i) => ({
        fileId,
        attributes: body.attributes ?? null,
        chunking: body.chunking_strategy,
        param: `file_ids[${i}]`,
      }))
    : (body.files ?? []).map((f, i) => ({
        fileId: f.file_id,
        attributes: f.attributes ?? null,
        chunking: f.chunking_strategy,
        param: `files[${i}].file_id`,
      }));
  const batch: StoredFileBatch = {
    id: newId('vsfb'),
    vectorStoreId: id,
    created_at: s.nowSeconds(),
    cancelled: false,
  };
  // One attachment per file id: a batch naming a file twice indexes it once.
  const unique = [...new Map(requests.map((r) => [r.fileId, r])).values()];
  const files = await s.prepareFiles(id, unique, batch.id);
  if (!(await s.vs.addFiles(id, files, batch))) await s.mustGet(id);
  s.startIndexing(store, files);
  return batchResponse(toFileBatch(batch, files));
}

/** `GET /v1/vector_stores/{id}/file_batches/{batch_id}`. */
export async function getFileBatch(id: string, batchId: string, s: VectorStoreSurface): Promise<Response> {
  const batch = await mustGetBatch(s, id, batchId);
  return batchResponse(toFileBatch(batch, await batchFiles(s, id, batchId)));
}

/** `POST …/file_batches/{batch_id}/cancel`: its files still `in_progress` become `cancelled`. */
export async function cancelFileBatch(id: string, batchId: string, s: VectorStoreSurface): Promise<Response> {
  await mustGetBatch(s, id, batchId);
  const before = await batchFiles(s, id, batchId);
  s.ingest.abort(
    id,
    before.filter((f) => f.status === 'in_progress').map((f) => f.fileId),
  );
  const batch = (await s.vs.cancelBatch(id, batchId)) ?? (await mustGetBatch(s, id, batchId));
  return batchResponse(toFileBatch(batch, await batchFiles(s, id, batchId)));
}

/** `GET …/file_batches/{batch_id}/files` (`filter`, cursor params). */
export async function listFileBatchFiles(url: URL, id: string, batchId: string, s: VectorStoreSurface) {
  await mustGetBatch(s, id, batchId);
  return listVectorStoreFiles(url, id, s, batchId);
}

async function batchFiles(s: VectorStoreSurface, id: string, batchId: string) {
  return (await s.vs.listFiles(id)).filter((f) => f.batchId === batchId);
}

async function mustGetBatch(s: VectorStoreSurface, id: string, batchId: string): Promise<StoredFileBatch> {
  await s.mustGet(id);
  const batch = await s.vs.getBatch(id, batchId);
  if (!batch) throw notFound(`No file batch found with id '${clip(batchId)}' in vector store '${clip(id)}'.`);
  return batch;
}

function batchResponse(batch: VectorStoreFileBatch): Response {
  const headers: Record<string, string> =
    batch.status === 'in_progress' ? { 'openai-poll-after-ms': String(POLL_AFTER_MS) } : {};
  return jsonResponse(batch, 200, headers);
}
