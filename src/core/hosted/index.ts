/**
 * Hosted tools: the contracts between the Responses tool loop and the surfaces behind each hosted
 * tool (`file_search` over `/v1/vector_stores`, files from `/v1/files`).
 *
 * @example
 * import type { FileSearchBackend } from '../hosted';
 */
export * from './contracts';
