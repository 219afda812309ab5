/**
 * Everything the `/v1/vector_stores` routes and the `file_search` backend run, as one module that the
 * server loads on the first request that needs it (`lazyModule` in server.ts): a page that never
 * touches a vector store does not download it (issue 36).
 */
export { createFileSearchBackend } from './backend';
export { cancelFileBatch, createFileBatch, getFileBatch, listFileBatchFiles } from './batch-routes';
export {
  createVectorStoreFile,
  deleteVectorStoreFile,
  getVectorStoreFile,
  listVectorStoreFiles,
  updateVectorStoreFile,
  vectorStoreFileContent,
} from './file-routes';
export { searchVectorStore } from './search-route';
export {
  createVectorStore,
  deleteVectorStore,
  getVectorStore,
  listVectorStores,
  updateVectorStore,
} from './store-routes';
export { VectorStoreSurface } from './surface';
