/**
 * The engines behind the one {@link Engine} contract: `scripted`, web-llm, and the composite that
 * routes each model id to the engine that serves it.
 *
 * @example
 * import { CompositeEngine, ScriptedEngine, WebLLMEngine } from './';
 * const engine = new CompositeEngine([new ScriptedEngine(), new WebLLMEngine()]);
 */
export { CompositeEngine } from './composite-engine';
export { type ChoiceSpec, EngineChoice } from './engine-choice';
export { LazyEngine } from './lazy-engine';
export { lazyWebLLMEngine, lazyWllamaEngine } from './lazy-engines';
export { RemoteEngine, type RemoteModelSpec, type RemoteServerSpec } from './remote';
export {
  messageText,
  SCRIPTED_CONTEXT_WINDOW,
  SCRIPTED_EMBEDDING_DIMENSIONS,
  SCRIPTED_MODEL_ID,
  ScriptedEngine,
  schemaInstancePaced,
  scriptedEmbedding,
  scriptedTokens,
} from './scripted';
export type * from './types';
export { type MLCEngineLike, WebLLMEngine, type WebLLMEngineOptions } from './webllm';
