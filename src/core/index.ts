export * from './api-error';
export type { RunLocks } from './recovery';
export type { ResponseObject } from './response-object';
export { createResponsesServer, type ResponsesServer, type ResponsesServerOptions } from './server';
export { encodeSseEvent } from './sse';
