/**
 * Public surface of the store: the contract (responses, conversations, item lookup), the in-memory
 * store and the IndexedDB store.
 *
 * @example
 * import { openIdbStore, MemoryStore, type ResponseStore } from './';
 * const store: ResponseStore = typeof indexedDB === 'undefined' ? new MemoryStore() : await openIdbStore();
 */

export type { FileListOptions, FileStore, StoredFileData, StoredFileMeta } from './files';
export { DB_NAME, DB_VERSION, type IntabDB } from './idb-schema';
export { IdbStore, type IdbStoreOptions, openIdbStore } from './idb-store';
export { MemoryStore } from './memory-store';
export type {
  ListOptions,
  ListPage,
  RecentEntries,
  ResponseStore,
  StoredConversation,
  StoredResponse,
  StoreLimits,
  SweepResult,
} from './types';
export {
  IdbVectorStores,
  MemoryVectorStores,
  type StoredVectorStore,
  type StoredVectorStoreFile,
  type VectorStoreStore,
} from './vector-stores';
