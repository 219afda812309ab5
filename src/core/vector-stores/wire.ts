import type { VectorStoreFileBatch } from 'openai/resources/vector-stores/file-batches';
import type { VectorStoreFile } from 'openai/resources/vector-stores/files';
import type { VectorStore } from 'openai/resources/vector-stores/vector-stores';
import type {
  SearchIndexKind,
  StoredFileBatch,
  StoredVectorStore,
  StoredVectorStoreFile,
} from '../../store/vector-stores';
import { LEXICAL_ONLY } from './budgets';

/**
 * intab's own fields on a vector store: `search_index` says how its files are searched (`vector`:
 * embeddings, `lexical`: BM25 alone, built with no embedding model) and `embedding_model` with what.
 */
export interface IntabVectorStoreFields {
  search_index: SearchIndexKind;
  embedding_model: string | null;
}

/** `file_counts` of a set of files, as stores and batches report them. */
export function fileCounts(files: StoredVectorStoreFile[]): VectorStore.FileCounts {
  const counts = { cancelled: 0, completed: 0, failed: 0, in_progress: 0, total: files.length };
  for (const f of files) counts[f.status]++;
  return counts;
}

/** When the store expires (Unix seconds), or null: `expires_after.days` after it was last active. */
export function expiresAt(store: StoredVectorStore): number | null {
  return store.expires_after ? store.last_active_at + store.expires_after.days * 86_400 : null;
}

/**
 * The wire `VectorStore`: counts, usage and status computed from its files now. `expired` once past
 * `expires_at`; else `in_progress` while a file is, else `completed`.
 *
 * @example
 * jsonResponse(toVectorStore(record, await vs.listFiles(record.id), Date.now()));
 */
export function toVectorStore(
  store: StoredVectorStore,
  files: StoredVectorStoreFile[],
  nowMs: number,
): VectorStore & IntabVectorStoreFields {
  const lexical = store.embedding.model === LEXICAL_ONLY;
  const counts = fileCounts(files);
  const expires = expiresAt(store);
  const status =
    expires !== null && expires <= Math.floor(nowMs / 1000)
      ? 'expired'
      : counts.in_progress > 0
        ? 'in_progress'
        : 'completed';
  return {
    id: store.id,
    object: 'vector_store',
    created_at: store.created_at,
    name: store.name,
    usage_bytes: files.reduce((n, f) => n + f.usage_bytes, 0),
    file_counts: counts,
    status,
    last_active_at: store.last_active_at,
    metadata: store.metadata ?? {},
    search_index: lexical ? 'lexical' : 'vector',
    embedding_model: lexical ? null : store.embedding.model,
    ...(store.expires_after
      ? { expires_after: store.expires_after, expires_at: expires }
      : { expires_at: null }),
  };
}

/**
 * The wire `VectorStoreFile`, with intab's `search_index` once completed: `vector`, or `lexical`
 * when it was indexed with no embedding model (none configured, or its model could not run here).
 */
export function toVectorStoreFile(
  f: StoredVectorStoreFile,
): VectorStoreFile & { search_index?: SearchIndexKind } {
  return {
    id: f.fileId,
    object: 'vector_store.file',
    created_at: f.created_at,
    usage_bytes: f.usage_bytes,
    vector_store_id: f.vectorStoreId,
    status: f.status,
    last_error: f.last_error,
    chunking_strategy: f.chunking_strategy,
    attributes: f.attributes ?? {},
    ...(f.status === 'completed' ? { search_index: f.searchIndex ?? 'vector' } : {}),
  };
}

/**
 * The wire `VectorStoreFileBatch` (`object: 'vector_store.files_batch'`, as OpenAI spells it). Its
 * status: `cancelled` once cancelled, `in_progress` while a file is, `failed` when every file failed,
 * else `completed`.
 */
export function toFileBatch(batch: StoredFileBatch, files: StoredVectorStoreFile[]): VectorStoreFileBatch {
  const counts = fileCounts(files);
  const status = batch.cancelled
    ? 'cancelled'
    : counts.in_progress > 0
      ? 'in_progress'
      : counts.total > 0 && counts.failed === counts.total
        ? 'failed'
        : 'completed';
  return {
    id: batch.id,
    object: 'vector_store.files_batch',
    created_at: batch.created_at,
    vector_store_id: batch.vectorStoreId,
    status,
    file_counts: counts,
  };
}
