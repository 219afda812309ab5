export * from './api-error';
export type { ResponseObject } from './response-object';
export { createResponsesServer, type ResponsesServer, type ResponsesServerOptions } from './server';
export { encodeSseEvent } from './sse';
export type { RunLocks } from './recovery';
