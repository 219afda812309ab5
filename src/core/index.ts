export * from './api-error';
export { encodeSseEvent } from './sse';
export { createResponsesServer, type ResponsesServer, type ResponsesServerOptions } from './server';
export type { ResponseObject } from './response-object';
