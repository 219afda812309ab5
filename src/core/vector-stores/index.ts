/**
 * The Vector Stores surface (`/v1/vector_stores`, its files, batches and search) and the
 * `file_search` backend over it: chunking in o200k tokens, embedding through the engine, attribute
 * filters, a brute-force cosine scan with optional BM25 fusion, and background ingestion.
 *
 * @example
 * const surface = new VectorStoreSurface(deps);
 * routes.push(...vectorStoreRoutes(surface));
 * const fileSearch = createFileSearchBackend(surface);
 */
export { createFileSearchBackend } from './backend';
export * from './budgets';
export { type Chunk, chunkRanges, chunkText, tokenize } from './chunker';
export { type FileTextExtractor, type FileTextResult, readTextFile } from './file-text';
export { type AttributeFilter, matchesFilter, parseFilters } from './filters';
export { vectorStoreRoutes } from './routes';
export {
  defaultEmbeddingModel,
  type VectorStoreDeps,
  type VectorStoreOptions,
  VectorStoreSurface,
} from './surface';
