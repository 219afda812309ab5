/**
 * The `scripted` model: deterministic replies, tool calls, JSON and embeddings, with no GPU, for
 * intab's tests and for apps' own tests.
 *
 * @example
 * import { ScriptedEngine } from './scripted';
 * const engine = new ScriptedEngine();
 */
export {
  InstanceTooLargeError,
  instanceForPaced,
  SCRIPTED_MAX_INSTANCE_VALUES,
  schemaInstancePaced,
} from './schema-instance';
export { SCRIPTED_EMBEDDING_DIMENSIONS, scriptedEmbedding } from './scripted-embedding';
export {
  messageText,
  SCRIPTED_CONTEXT_WINDOW,
  SCRIPTED_MODEL_ID,
  ScriptedEngine,
  scriptedTokens,
} from './scripted-engine';
