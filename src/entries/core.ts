/**
 * `intab/core`: the Responses server as a plain `(Request) => Promise<Response>`, with the
 * deterministic `scripted` model and stores, for Node tests, other runtimes and custom setups.
 *
 * @example
 * import { createResponsesServer, ScriptedEngine, MemoryStore } from 'intab/core';
 * const server = createResponsesServer({ engine: new ScriptedEngine(), store: new MemoryStore() });
 * const res = await server.fetch(new Request('http://localhost/v1/responses', { method: 'POST', body: '{"model":"scripted","input":"hi"}' }));
 */
export * from '../core';
export {
  CompositeEngine,
  SCRIPTED_CONTEXT_WINDOW,
  SCRIPTED_EMBEDDING_DIMENSIONS,
  SCRIPTED_MODEL_ID,
  ScriptedEngine,
  scriptedEmbedding,
  WebLLMEngine,
} from '../engine';
export type * from '../engine/types';
export type { MLCEngineLike, WebLLMEngineOptions } from '../engine/webllm';
export { IdbStore, type IdbStoreOptions, MemoryStore, openIdbStore } from '../store';
export type * from '../store/types';
