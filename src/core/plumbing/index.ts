/**
 * The HTTP plumbing under every API surface: routing paths, capped body reads, JSON and SSE
 * encoding, validation to OpenAI's messages, list parameters, ids, the early-headers hold, and the
 * lookups (models, history) that several surfaces share.
 *
 * @example
 * import { jsonResponse, parseOrThrow } from './';
 */
export * from './api-paths';
export * from './capped-read';
export * from './event-queue';
export * from './file-inputs';
export * from './file-types';
export * from './http';
export * from './ids';
export * from './input-files';
export * from './json-hold';
export * from './json-mode';
export * from './list-params';
export * from './lookups';
export * from './pdf-text';
export * from './sse';
export * from './sse-body';
export * from './stop-sequences';
export * from './validate';
