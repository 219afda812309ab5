export * from './api-error';
export type { RunLocks } from './recovery';
export type { ResponseObject } from './response-object';
export {
  createResponsesServer,
  DEFAULT_JSON_HOLD_MS,
  type ResponsesServer,
  type ResponsesServerOptions,
} from './server';
export { encodeSseComment, encodeSseEvent, type SseComment } from './sse';
