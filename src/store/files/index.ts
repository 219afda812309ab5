/**
 * The files of `/v1/files`: the {@link FileStore} contract, in memory and on IndexedDB. Each
 * ResponseStore holds one as `store.files`, on its own connection.
 *
 * @example
 * import { MemoryFiles, type FileStore } from './files';
 */
export { IdbFiles } from './idb-files';
export { MemoryFiles } from './memory-files';
export {
  compareFiles,
  type FileListOptions,
  type FilePage,
  type FileStore,
  type StoredFileData,
  type StoredFileMeta,
} from './types';
