/**
 * Hosted tools: the contracts between the Responses tool loop and the surfaces behind each hosted
 * tool (`file_search` over `/v1/vector_stores`, files from `/v1/files`), each tool's run inside a
 * response (`file-search.ts`), its stream events (`hosted-events.ts`) and citations.
 *
 * @example
 * import type { FileSearchBackend } from '../hosted';
 */
export * from './budgets';
export * from './citations';
export * from './code-interpreter';
export * from './code-stream';
export * from './container-citations';
export * from './contracts';
export * from './file-search';
export * from './hosted-events';
export * from './mcp';
export * from './mcp-connection';
export * from './mcp-events';
export * from './mcp-policy';
export * from './mcp-results';
export * from './python-backend';
