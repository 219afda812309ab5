export * from '../common/api-error';
export { encodeSseComment, encodeSseEvent, type SseComment } from './http/sse';
export type { ResponseObject, RunLocks } from './responses';
export {
  createResponsesServer,
  DEFAULT_JSON_HOLD_MS,
  type ResponsesServer,
  type ResponsesServerOptions,
} from './server';
export {
  DEFAULT_SOCKET_CACHED_RESPONSES,
  DEFAULT_SOCKET_QUEUED_MESSAGES,
  IntabSocketLike,
  IntabWebSocket,
  type IntabWebSocketOptions,
  ResponsesSocketSession,
  type SocketErrorEvent,
  type SocketSessionOptions,
} from './websocket';
