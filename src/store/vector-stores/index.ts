/**
 * The vector stores half of the store: vector stores, their files and batches, chunk texts and
 * vectors, in memory or on IndexedDB (object stores of schema version 3).
 *
 * @example
 * import { MemoryVectorStores, type VectorStoreStore } from './vector-stores';
 */
export { IdbVectorStores } from './idb-vector-stores';
export { MemoryVectorStores } from './memory-vector-stores';
export type {
  FileOutcome,
  SearchIndexKind,
  StoredFileBatch,
  StoredVectorStore,
  StoredVectorStoreFile,
  StoredVectors,
  VectorFileAttributes,
  VectorFileError,
  VectorFileStatus,
  VectorIndexSnapshot,
  VectorStorePatch,
  VectorStoreStore,
} from './types';
