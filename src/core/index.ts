export * from '../common/api-error';
export { encodeSseComment, encodeSseEvent, type SseComment } from './plumbing/sse';
export type { ResponseObject, RunLocks } from './responses';
export {
  createResponsesServer,
  DEFAULT_JSON_HOLD_MS,
  type ResponsesServer,
  type ResponsesServerOptions,
} from './server';
