import * as z from 'zod/mini';
import { newId } from '../http/ids';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { metadataSchema, parseOrThrow } from '../validation/params';
import { MAX_CREATE_FILE_IDS } from './budgets';
import { pageOf } from './paging';
import { chunkingSchema, expiresAfterSchema, fileIdSchema } from './params';
import type { VectorStoreSurface } from './surface';
import { toVectorStore } from './wire';

const createSchema = z.strictObject({
  name: z.nullish(z.string().check(z.maxLength(256))),
  description: z.nullish(z.string().check(z.maxLength(512))),
  file_ids: z.nullish(z.array(fileIdSchema).check(z.maxLength(MAX_CREATE_FILE_IDS))),
  chunking_strategy: z.nullish(chunkingSchema),
  expires_after: z.nullish(expiresAfterSchema),
  metadata: z.nullish(metadataSchema),
});

const updateSchema = z.strictObject({
  name: z.nullish(z.string().check(z.maxLength(256))),
  expires_after: z.nullish(expiresAfterSchema),
  metadata: z.nullish(metadataSchema),
});

/**
 * `POST /v1/vector_stores`: the store, and its `file_ids` attached and queued for indexing with the
 * `chunking_strategy`. Every file is checked first, so a bad id leaves no store behind. The store
 * records the embedding model it is built with.
 */
export async function createVectorStore(request: Request, s: VectorStoreSurface): Promise<Response> {
  const body = parseOrThrow(createSchema, await readJsonObject(request, s.deps.maxBodyBytes));
  const now = s.nowSeconds();
  const id = newId('vs');
  const files = await s.prepareFiles(
    id,
    (body.file_ids ?? []).map((fileId, i) => ({
      fileId,
      attributes: null,
      chunking: body.chunking_strategy,
      param: `file_ids[${i}]`,
    })),
    null,
  );
  await s.deps.engine.init?.().catch(() => {});
  const record = {
    id,
    created_at: now,
    name: body.name ?? '',
    description: body.description ?? null,
    metadata: body.metadata ?? {},
    expires_after: body.expires_after ?? null,
    last_active_at: now,
    embedding: { model: s.embeddingModel(), dimensions: null },
    revision: 0,
  };
  await s.vs.putStore(record);
  if (files.length > 0) {
    await s.vs.addFiles(id, files);
    s.startIndexing(record, files);
  }
  return jsonResponse(toVectorStore(record, files, s.deps.now()));
}

/** `GET /v1/vector_stores` (`limit`, `order`, `after`, `before`). */
export async function listVectorStores(url: URL, s: VectorStoreSurface): Promise<Response> {
  const stores = await s.vs.listStores();
  const now = s.deps.now();
  const wire = await Promise.all(
    stores.map(async (st) => toVectorStore(st, await s.vs.listFiles(st.id), now)),
  );
  return jsonResponse(pageOf(wire, url));
}

/** `GET /v1/vector_stores/{id}`. */
export async function getVectorStore(id: string, s: VectorStoreSurface): Promise<Response> {
  const store = await s.mustGet(id);
  return jsonResponse(toVectorStore(store, await s.vs.listFiles(id), s.deps.now()));
}

/** `POST /v1/vector_stores/{id}`: `name`, `metadata`, `expires_after` (null removes the expiry). */
export async function updateVectorStore(
  request: Request,
  id: string,
  s: VectorStoreSurface,
): Promise<Response> {
  const body = parseOrThrow(updateSchema, await readJsonObject(request, s.deps.maxBodyBytes));
  await s.mustGet(id);
  const patch: Parameters<typeof s.vs.updateStore>[1] = {};
  if (body.name !== undefined) patch.name = body.name ?? '';
  if (body.metadata !== undefined) patch.metadata = body.metadata ?? {};
  if (body.expires_after !== undefined) patch.expires_after = body.expires_after;
  const updated = await s.vs.updateStore(id, patch);
  // Deleted between the check and the write: the delete wins, and says so.
  if (!updated) await s.mustGet(id);
  return jsonResponse(
    toVectorStore(updated ?? (await s.mustGet(id)), await s.vs.listFiles(id), s.deps.now()),
  );
}

/** `DELETE /v1/vector_stores/{id}`: the store, its files' attachments, chunks and vectors. */
export async function deleteVectorStore(id: string, s: VectorStoreSurface): Promise<Response> {
  s.ingest.abort(id);
  const deleted = await s.vs.deleteStore(id);
  s.cache.forget(id);
  if (!deleted) await s.mustGet(id); // the 404
  return jsonResponse({ id, object: 'vector_store.deleted', deleted: true });
}
