/**
 * What every layer shares and nothing below it: the one error type, {@link ApiError}, and its
 * plain-data form for crossing workers; base64 over bytes; where a streamed JSON value ends
 * ({@link JsonValueScanner}); JSON Pointer (RFC 6901) for local `$ref`s; the one SSE reader; and
 * {@link pace}, which keeps big requests from holding the event loop. The core, the engines and the
 * store all import from here, never from each other upward.
 *
 * @example
 * import { ApiError, invalidRequest } from './';
 * throw invalidRequest('temperature', 'Invalid value for temperature.', 'invalid_value');
 */
export * from './api-error';
export * from './base64';
export * from './json-pointer';
export * from './json-scan';
export * from './lazy-assets';
export * from './pace';
export * from './redact';
export * from './sse-data';
