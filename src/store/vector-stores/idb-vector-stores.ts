import { quiet, type TxRunner } from '../idb-tx';
import type { IntabTx } from '../idb-types';
import type {
  FileOutcome,
  StoredFileBatch,
  StoredVectorStore,
  StoredVectorStoreFile,
  VectorFileAttributes,
  VectorIndexSnapshot,
  VectorStorePatch,
  VectorStoreStore,
} from './types';

/** Every object store a vector store's data lives in; deletes span all of them. */
type VsStores = [
  'vector_stores',
  'vector_store_files',
  'vector_store_batches',
  'vector_chunks',
  'vector_vectors',
];
const VS_STORES: VsStores = [
  'vector_stores',
  'vector_store_files',
  'vector_store_batches',
  'vector_chunks',
  'vector_vectors',
];
type VsTx = IntabTx<VsStores, 'readwrite'>;

/**
 * Every key `[vectorStoreId, …]` of one store: `[id]` sorts before any longer key that starts with
 * it, and an array sorts after every string, so `[id, []]` closes the range after all its file ids.
 */
function storeRange(vectorStoreId: string): IDBKeyRange {
  return IDBKeyRange.bound([vectorStoreId], [vectorStoreId, []]);
}

/**
 * {@link VectorStoreStore} on IndexedDB, sharing IdbStore's connection. Chunk texts and vectors have
 * object stores of their own, one record per file each (the vectors one `ArrayBuffer`), so listing
 * files or reading a store's record never loads them. Each method is one transaction.
 *
 * @example
 * const vs = new IdbVectorStores(runner);
 * await vs.finishFile('vs_1', 'file-1', attempt, outcome); // chunks, vectors and status together
 */
export class IdbVectorStores implements VectorStoreStore {
  constructor(private readonly runner: TxRunner) {}

  async putStore(record: StoredVectorStore): Promise<void> {
    await this.runner.run(['vector_stores'], 'readwrite', 'default', (tx) => {
      quiet(tx.objectStore('vector_stores').put(record));
    });
  }

  getStore(id: string): Promise<StoredVectorStore | undefined> {
    return this.runner.run(['vector_stores'], 'readonly', 'default', (tx) =>
      tx.objectStore('vector_stores').get(id),
    );
  }

  updateStore(id: string, patch: VectorStorePatch): Promise<StoredVectorStore | undefined> {
    return this.runner.run(['vector_stores'], 'readwrite', 'default', async (tx) => {
      const existing = await tx.objectStore('vector_stores').get(id);
      if (!existing) return undefined;
      const next = { ...existing, ...patch };
      quiet(tx.objectStore('vector_stores').put(next));
      return next;
    });
  }

  listStores(): Promise<StoredVectorStore[]> {
    return this.runner.run(['vector_stores'], 'readonly', 'default', (tx) =>
      tx.objectStore('vector_stores').getAll(),
    );
  }

  deleteStore(id: string): Promise<boolean> {
    return this.runner.run(VS_STORES, 'readwrite', 'default', async (tx) => {
      const existing = await tx.objectStore('vector_stores').get(id);
      quiet(tx.objectStore('vector_stores').delete(id));
      for (const name of [
        'vector_store_files',
        'vector_store_batches',
        'vector_chunks',
        'vector_vectors',
      ] as const)
        quiet(tx.objectStore(name).delete(storeRange(id)));
      return existing !== undefined;
    });
  }

  addFiles(vectorStoreId: string, files: StoredVectorStoreFile[], batch?: StoredFileBatch): Promise<boolean> {
    return this.runner.run(VS_STORES, 'readwrite', 'default', async (tx) => {
      const store = await tx.objectStore('vector_stores').get(vectorStoreId);
      if (!store) return false;
      for (const file of files) {
        dropIndex(tx, vectorStoreId, file.fileId);
        quiet(tx.objectStore('vector_store_files').put(file));
      }
      if (batch) quiet(tx.objectStore('vector_store_batches').put(batch));
      bump(tx, store);
      return true;
    });
  }

  getFile(vectorStoreId: string, fileId: string): Promise<StoredVectorStoreFile | undefined> {
    return this.runner.run(['vector_store_files'], 'readonly', 'default', (tx) =>
      tx.objectStore('vector_store_files').get([vectorStoreId, fileId]),
    );
  }

  listFiles(vectorStoreId: string): Promise<StoredVectorStoreFile[]> {
    return this.runner.run(['vector_store_files'], 'readonly', 'default', (tx) =>
      tx.objectStore('vector_store_files').getAll(storeRange(vectorStoreId)),
    );
  }

  updateFileAttributes(
    vectorStoreId: string,
    fileId: string,
    attributes: VectorFileAttributes | null,
  ): Promise<StoredVectorStoreFile | undefined> {
    return this.runner.run(VS_STORES, 'readwrite', 'default', async (tx) => {
      const [store, file] = await Promise.all([
        tx.objectStore('vector_stores').get(vectorStoreId),
        tx.objectStore('vector_store_files').get([vectorStoreId, fileId]),
      ]);
      if (!store || !file) return undefined;
      const next = { ...file, attributes };
      quiet(tx.objectStore('vector_store_files').put(next));
      bump(tx, store);
      return next;
    });
  }

  deleteFile(vectorStoreId: string, fileId: string): Promise<boolean> {
    return this.runner.run(VS_STORES, 'readwrite', 'default', async (tx) => {
      const [store, file] = await Promise.all([
        tx.objectStore('vector_stores').get(vectorStoreId),
        tx.objectStore('vector_store_files').get([vectorStoreId, fileId]),
      ]);
      if (!store || !file) return false;
      quiet(tx.objectStore('vector_store_files').delete([vectorStoreId, fileId]));
      dropIndex(tx, vectorStoreId, fileId);
      bump(tx, store);
      return true;
    });
  }

  finishFile(vectorStoreId: string, fileId: string, attempt: string, outcome: FileOutcome): Promise<boolean> {
    // Strict: a file reported `completed` must find its vectors after a crash.
    return this.runner.run(VS_STORES, 'readwrite', 'strict', async (tx) => {
      const [store, file] = await Promise.all([
        tx.objectStore('vector_stores').get(vectorStoreId),
        tx.objectStore('vector_store_files').get([vectorStoreId, fileId]),
      ]);
      if (!store || !file || file.attempt !== attempt || file.status !== 'in_progress') return false;
      const key: [string, string] = [vectorStoreId, fileId];
      if (outcome.ok) {
        quiet(tx.objectStore('vector_chunks').put({ texts: outcome.chunks }, key));
        quiet(tx.objectStore('vector_vectors').put(outcome.vectors, key));
        quiet(
          tx.objectStore('vector_store_files').put({
            ...file,
            status: 'completed',
            usage_bytes: outcome.usageBytes,
            searchIndex: outcome.vectors.dimensions > 0 ? 'vector' : 'lexical',
          }),
        );
        if (outcome.vectors.dimensions > 0) store.embedding.dimensions ??= outcome.vectors.dimensions;
      } else {
        quiet(
          tx.objectStore('vector_store_files').put({ ...file, status: 'failed', last_error: outcome.error }),
        );
      }
      bump(tx, store);
      return true;
    });
  }

  startFile(vectorStoreId: string, fileId: string, attempt: string): Promise<boolean> {
    // Nothing a search sees changes, so no revision bump. Committed before the run's work, so a
    // worker killed mid-run leaves the count behind for the next start-up to read.
    return this.runner.run(['vector_store_files'], 'readwrite', 'default', async (tx) => {
      const files = tx.objectStore('vector_store_files');
      const file = await files.get([vectorStoreId, fileId]);
      if (!file || file.attempt !== attempt || file.status !== 'in_progress') return false;
      quiet(files.put({ ...file, runsStarted: (file.runsStarted ?? 0) + 1 }));
      return true;
    });
  }

  getBatch(vectorStoreId: string, batchId: string): Promise<StoredFileBatch | undefined> {
    return this.runner.run(['vector_store_batches'], 'readonly', 'default', (tx) =>
      tx.objectStore('vector_store_batches').get([vectorStoreId, batchId]),
    );
  }

  cancelBatch(vectorStoreId: string, batchId: string): Promise<StoredFileBatch | undefined> {
    return this.runner.run(VS_STORES, 'readwrite', 'default', async (tx) => {
      const [store, batch, files] = await Promise.all([
        tx.objectStore('vector_stores').get(vectorStoreId),
        tx.objectStore('vector_store_batches').get([vectorStoreId, batchId]),
        tx.objectStore('vector_store_files').getAll(storeRange(vectorStoreId)),
      ]);
      if (!store || !batch) return undefined;
      const next = { ...batch, cancelled: true };
      quiet(tx.objectStore('vector_store_batches').put(next));
      for (const file of files)
        if (file.batchId === batchId && file.status === 'in_progress')
          quiet(tx.objectStore('vector_store_files').put({ ...file, status: 'cancelled' }));
      bump(tx, store);
      return next;
    });
  }

  async readChunks(vectorStoreId: string, fileId: string): Promise<string[]> {
    const record = await this.runner.run(['vector_chunks'], 'readonly', 'default', (tx) =>
      tx.objectStore('vector_chunks').get([vectorStoreId, fileId]),
    );
    return record?.texts ?? [];
  }

  readIndex(vectorStoreId: string): Promise<VectorIndexSnapshot | undefined> {
    const range = storeRange(vectorStoreId);
    return this.runner.run(VS_STORES, 'readonly', 'default', async (tx) => {
      const [store, files, chunkKeys, chunks, vectorKeys, vectors] = await Promise.all([
        tx.objectStore('vector_stores').get(vectorStoreId),
        tx.objectStore('vector_store_files').getAll(range),
        tx.objectStore('vector_chunks').getAllKeys(range),
        tx.objectStore('vector_chunks').getAll(range),
        tx.objectStore('vector_vectors').getAllKeys(range),
        tx.objectStore('vector_vectors').getAll(range),
      ]);
      if (!store) return undefined;
      const textsOf = new Map(chunkKeys.map((k, i) => [k[1], chunks[i]?.texts]));
      const vectorsOf = new Map(vectorKeys.map((k, i) => [k[1], vectors[i]]));
      const out: VectorIndexSnapshot['files'] = [];
      for (const file of files) {
        const texts = textsOf.get(file.fileId);
        const vecs = vectorsOf.get(file.fileId);
        if (file.status === 'completed' && texts && vecs) out.push({ file, chunks: texts, vectors: vecs });
      }
      return { store, files: out };
    });
  }

  forgetFile(fileId: string): Promise<number> {
    return this.runner.run(VS_STORES, 'readwrite', 'default', async (tx) => {
      const keys = await tx.objectStore('vector_store_files').index('by_file').getAllKeys(fileId);
      for (const [vectorStoreId] of keys) {
        quiet(tx.objectStore('vector_store_files').delete([vectorStoreId, fileId]));
        dropIndex(tx, vectorStoreId, fileId);
        const store = await tx.objectStore('vector_stores').get(vectorStoreId);
        if (store) bump(tx, store);
      }
      return keys.length;
    });
  }
}

function dropIndex(tx: VsTx, vectorStoreId: string, fileId: string): void {
  quiet(tx.objectStore('vector_chunks').delete([vectorStoreId, fileId]));
  quiet(tx.objectStore('vector_vectors').delete([vectorStoreId, fileId]));
}

/** Records a change searches must see (see {@link StoredVectorStore.revision}). */
function bump(tx: VsTx, store: StoredVectorStore): void {
  quiet(tx.objectStore('vector_stores').put({ ...store, revision: store.revision + 1 }));
}
