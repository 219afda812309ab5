/**
 * Public surface of the page glue. Every tab of the origin calls `startIntab()`; one of them (the
 * Web Locks leader) runs the engine worker, and every tab's `/v1/*` requests are answered there.
 *
 * @example
 * import { startIntab } from './client';
 * const intab = startIntab();
 * await intab.ready; // fetch('/v1/responses') now answers, from this tab's engine or the leader's
 */

export { IntabSocketLike, IntabWebSocket, type IntabWebSocketOptions } from '../core/websocket';
export type { GpuStatus } from '../worker/protocol';
export type { ServerOptions, StoreOptions, WebLLMOptions } from '../worker/worker-options';
export { type InstallWebSocketOptions, installWebSocket } from './install-web-socket';
export { type IntabClient, type StartIntabOptions, startIntab } from './start-intab';
export type { IntabUpdate, IntabUpdates } from './updates';
