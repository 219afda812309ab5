export { CompositeEngine } from './composite-engine';
export { schemaInstance } from './schema-instance';
export { SCRIPTED_EMBEDDING_DIMENSIONS, scriptedEmbedding } from './scripted-embedding';
export {
  messageText,
  SCRIPTED_CONTEXT_WINDOW,
  SCRIPTED_MODEL_ID,
  ScriptedEngine,
  scriptedTokens,
} from './scripted-engine';
export type * from './types';
export { WebLLMEngine } from './webllm-engine';
