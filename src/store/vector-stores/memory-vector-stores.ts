import type {
  FileOutcome,
  StoredFileBatch,
  StoredVectorStore,
  StoredVectorStoreFile,
  StoredVectors,
  VectorFileAttributes,
  VectorIndexSnapshot,
  VectorStorePatch,
  VectorStoreStore,
} from './types';

/** One store's data: the record, its files, batches, and each indexed file's chunks and vectors. */
interface Entry {
  store: StoredVectorStore;
  files: Map<string, StoredVectorStoreFile>;
  batches: Map<string, StoredFileBatch>;
  chunks: Map<string, string[]>;
  vectors: Map<string, StoredVectors>;
}

/**
 * {@link VectorStoreStore} in memory, for tests and `store: false` sessions. Every method does its
 * check and its write in one synchronous step after its single await point, so, as with IndexedDB's
 * transactions, no other call interleaves between them. Values are structured-cloned in and out.
 *
 * @example
 * const vs = new MemoryVectorStores();
 * await vs.putStore(record);
 */
export class MemoryVectorStores implements VectorStoreStore {
  private readonly entries = new Map<string, Entry>();

  async putStore(record: StoredVectorStore): Promise<void> {
    const store = structuredClone(record);
    const existing = this.entries.get(store.id);
    if (existing) existing.store = store;
    else
      this.entries.set(store.id, {
        store,
        files: new Map(),
        batches: new Map(),
        chunks: new Map(),
        vectors: new Map(),
      });
  }

  async getStore(id: string): Promise<StoredVectorStore | undefined> {
    return structuredClone(this.entries.get(id)?.store);
  }

  async updateStore(id: string, patch: VectorStorePatch): Promise<StoredVectorStore | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    entry.store = { ...entry.store, ...structuredClone(patch) };
    return structuredClone(entry.store);
  }

  async listStores(): Promise<StoredVectorStore[]> {
    return [...this.entries.values()].map((e) => structuredClone(e.store));
  }

  async deleteStore(id: string): Promise<boolean> {
    return this.entries.delete(id);
  }

  async addFiles(
    vectorStoreId: string,
    files: StoredVectorStoreFile[],
    batch?: StoredFileBatch,
  ): Promise<boolean> {
    const copies = structuredClone(files);
    const entry = this.entries.get(vectorStoreId);
    if (!entry) return false;
    for (const file of copies) {
      dropIndex(entry, file.fileId);
      entry.files.set(file.fileId, file);
    }
    if (batch) entry.batches.set(batch.id, structuredClone(batch));
    entry.store.revision++;
    return true;
  }

  async getFile(vectorStoreId: string, fileId: string): Promise<StoredVectorStoreFile | undefined> {
    return structuredClone(this.entries.get(vectorStoreId)?.files.get(fileId));
  }

  async listFiles(vectorStoreId: string): Promise<StoredVectorStoreFile[]> {
    return [...(this.entries.get(vectorStoreId)?.files.values() ?? [])].map((f) => structuredClone(f));
  }

  async updateFileAttributes(
    vectorStoreId: string,
    fileId: string,
    attributes: VectorFileAttributes | null,
  ): Promise<StoredVectorStoreFile | undefined> {
    const entry = this.entries.get(vectorStoreId);
    const file = entry?.files.get(fileId);
    if (!entry || !file) return undefined;
    file.attributes = structuredClone(attributes);
    entry.store.revision++;
    return structuredClone(file);
  }

  async deleteFile(vectorStoreId: string, fileId: string): Promise<boolean> {
    const entry = this.entries.get(vectorStoreId);
    if (!entry?.files.has(fileId)) return false;
    entry.files.delete(fileId);
    dropIndex(entry, fileId);
    entry.store.revision++;
    return true;
  }

  async finishFile(
    vectorStoreId: string,
    fileId: string,
    attempt: string,
    outcome: FileOutcome,
  ): Promise<boolean> {
    const copy = structuredClone(outcome);
    const entry = this.entries.get(vectorStoreId);
    const file = entry?.files.get(fileId);
    if (!entry || !file || file.attempt !== attempt || file.status !== 'in_progress') return false;
    if (copy.ok) {
      entry.chunks.set(fileId, copy.chunks);
      entry.vectors.set(fileId, copy.vectors);
      file.status = 'completed';
      file.usage_bytes = copy.usageBytes;
      file.searchIndex = copy.vectors.dimensions > 0 ? 'vector' : 'lexical';
      if (copy.vectors.dimensions > 0) entry.store.embedding.dimensions ??= copy.vectors.dimensions;
    } else {
      file.status = 'failed';
      file.last_error = copy.error;
    }
    entry.store.revision++;
    return true;
  }

  async startFile(vectorStoreId: string, fileId: string, attempt: string): Promise<boolean> {
    const file = this.entries.get(vectorStoreId)?.files.get(fileId);
    if (!file || file.attempt !== attempt || file.status !== 'in_progress') return false;
    file.runsStarted = (file.runsStarted ?? 0) + 1;
    return true;
  }

  async getBatch(vectorStoreId: string, batchId: string): Promise<StoredFileBatch | undefined> {
    return structuredClone(this.entries.get(vectorStoreId)?.batches.get(batchId));
  }

  async cancelBatch(vectorStoreId: string, batchId: string): Promise<StoredFileBatch | undefined> {
    const entry = this.entries.get(vectorStoreId);
    const batch = entry?.batches.get(batchId);
    if (!entry || !batch) return undefined;
    batch.cancelled = true;
    for (const file of entry.files.values())
      if (file.batchId === batchId && file.status === 'in_progress') file.status = 'cancelled';
    entry.store.revision++;
    return structuredClone(batch);
  }

  async readChunks(vectorStoreId: string, fileId: string): Promise<string[]> {
    return [...(this.entries.get(vectorStoreId)?.chunks.get(fileId) ?? [])];
  }

  async readIndex(vectorStoreId: string): Promise<VectorIndexSnapshot | undefined> {
    const entry = this.entries.get(vectorStoreId);
    if (!entry) return undefined;
    const files: VectorIndexSnapshot['files'] = [];
    for (const file of entry.files.values()) {
      const chunks = entry.chunks.get(file.fileId);
      const vectors = entry.vectors.get(file.fileId);
      if (file.status !== 'completed' || !chunks || !vectors) continue;
      // Vectors are never mutated after they are written, so the snapshot shares the buffer.
      files.push({ file: structuredClone(file), chunks: [...chunks], vectors });
    }
    return { store: structuredClone(entry.store), files };
  }

  async forgetFile(fileId: string): Promise<number> {
    let n = 0;
    for (const entry of this.entries.values()) {
      if (!entry.files.delete(fileId)) continue;
      dropIndex(entry, fileId);
      entry.store.revision++;
      n++;
    }
    return n;
  }
}

function dropIndex(entry: Entry, fileId: string): void {
  entry.chunks.delete(fileId);
  entry.vectors.delete(fileId);
}
