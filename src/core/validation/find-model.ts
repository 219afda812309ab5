import { modelNotFound, unsupportedModel } from '../../common/api-error';
import type { Engine, ModelCapability, ModelInfo } from '../../engine/types';

/**
 * The model a request names, or OpenAI's 400 `model_not_found`; a model listed for other work than
 * `use` (an embedding model asked to chat, say) is a 400 `unsupported_model`. The server has awaited
 * the engine's `init()` before any route that calls this, so the list is complete (or known not to be).
 *
 * @example
 * const model = findModel(engine, 'scripted');
 * const embedder = findModel(engine, 'snowflake-arctic-embed-m-q0f32-MLC-b32', 'embeddings');
 */
export function findModel(engine: Engine, id: string, use: ModelCapability = 'chat'): ModelInfo {
  const model = engine.models().find((m) => m.id === id);
  if (!model) throw modelNotFound(id, engine.missingReason?.() ?? null);
  if (!(model.capabilities ?? ['chat']).includes(use)) throw unsupportedModel(id, use);
  return model;
}
