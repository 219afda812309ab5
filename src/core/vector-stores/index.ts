/**
 * The Vector Stores surface (`/v1/vector_stores`, its files, batches and search) and the
 * `file_search` backend over it: chunking in o200k tokens, embedding through the engine, attribute
 * filters, a brute-force cosine scan with optional BM25 fusion, and background ingestion.
 *
 * @example
 * const surface = new VectorStoreSurface(deps);
 * const fileSearch = createFileSearchBackend(surface);
 *
 * The server loads this module on the first request that needs it (`lazyModule` in server.ts): a
 * page that never touches a vector store does not download it (issue 36). The routes' table,
 * routes.ts, knows the paths without it (server.ts imports it directly), and each route's handler
 * is one of the functions exported here.
 */
export { createFileSearchBackend } from './backend';
export { cancelFileBatch, createFileBatch, getFileBatch, listFileBatchFiles } from './batch-routes';
export * from './budgets';
export { type Chunk, chunkRanges, chunkText, tokenize } from './chunker';
export {
  createVectorStoreFile,
  deleteVectorStoreFile,
  getVectorStoreFile,
  listVectorStoreFiles,
  updateVectorStoreFile,
  vectorStoreFileContent,
} from './file-routes';
export { type FileTextExtractor, type FileTextResult, readTextFile } from './file-text';
export { type AttributeFilter, matchesFilter, parseFilters } from './filters';
export { searchVectorStore } from './search-route';
export {
  createVectorStore,
  deleteVectorStore,
  getVectorStore,
  listVectorStores,
  updateVectorStore,
} from './store-routes';
export {
  defaultEmbeddingModel,
  type VectorStoreDeps,
  type VectorStoreOptions,
  VectorStoreSurface,
} from './surface';
