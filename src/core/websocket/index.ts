/**
 * WebSocket mode of `/v1/responses` (DESIGN.md §10): a connection whose `response.create` messages
 * go through the same create as `POST /v1/responses` (stream on), with a per-connection cache for
 * `store: false` continuations. {@link IntabWebSocket} is the browser-compatible socket over it, and
 * {@link IntabSocketLike} the shape the `openai` SDK's `ResponsesWSBase` drives.
 *
 * @example
 * import { IntabWebSocket } from './websocket';
 * const ws = new IntabWebSocket('ws://localhost/v1/responses', undefined, { fetch: server.fetch });
 */
export { DEFAULT_SOCKET_CACHED_RESPONSES } from './connection-cache';
export { IntabWebSocket, type IntabWebSocketOptions } from './intab-web-socket';
export { IntabSocketLike } from './socket-like';
export { MAX_SOCKET_MESSAGE_CHARS, type SocketErrorEvent } from './socket-message';
export {
  DEFAULT_SOCKET_QUEUED_MESSAGES,
  ResponsesSocketSession,
  type SocketSessionOptions,
} from './socket-session';
