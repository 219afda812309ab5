/**
 * The Embeddings surface (`/v1/embeddings`).
 *
 * @example
 * import { createEmbeddings } from './embeddings';
 */
export { createEmbeddings, type EmbeddingDeps, MAX_EMBEDDING_INPUTS } from './embeddings';
