/**
 * HTTP under every API surface: API paths, request bodies read with size caps, JSON answers and the
 * early-headers hold, SSE framing and the pushed SSE body with its event queue, list parameters and
 * ids.
 *
 * @example
 * import { jsonResponse, readJsonObject } from '../http';
 */
export * from './api-paths';
export * from './capped-read';
export * from './event-queue';
export * from './ids';
export * from './json-body';
export * from './json-hold';
export * from './list-params';
export * from './sse';
export * from './sse-body';
