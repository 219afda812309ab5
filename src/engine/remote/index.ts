/**
 * The remote engine: inference forwarded to an OpenAI-compatible server, everything else in the tab.
 *
 * @example
 * import { RemoteEngine } from './remote';
 * const remote = new RemoteEngine({ servers: [{ baseURL: 'http://127.0.0.1:8080/v1' }] });
 */
export { chatBody } from './remote-body';
export { RemoteEngine, type RemoteEngineOptions } from './remote-engine';
export type { FetchLike } from './remote-fetch';
export {
  normalizeServer,
  REMOTE_DEFAULT_CONTEXT,
  REMOTE_FIRST_BYTE_MS,
  REMOTE_STALL_MS,
  type RemoteModelSpec,
  type RemoteServerSpec,
} from './remote-options';
