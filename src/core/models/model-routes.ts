import { catalogEntry, catalogWireFields } from '../../catalog';
import { ApiError, clip } from '../../common/api-error';
import type { Engine, ModelInfo } from '../../engine/types';
import { jsonResponse } from '../http/json-body';

/**
 * `GET /v1/models`: every model the engine serves, in OpenAI's list shape.
 *
 * @example
 * const res = listModels(engine); // { object: 'list', data: [{ id: 'scripted', object: 'model', … }] }
 */
export function listModels(engine: Engine): Response {
  return jsonResponse({ object: 'list', data: engine.models().map(toWireModel) });
}

/**
 * `GET /v1/models/{id}`: one model, or OpenAI's 404 `model_not_found`.
 *
 * @example
 * const res = getModel(engine, 'scripted');
 */
export function getModel(engine: Engine, id: string): Response {
  const model = engine.models().find((m) => m.id === id);
  // The Models API is the one place OpenAI answers an unknown model with 404 (and this wording).
  if (!model)
    throw new ApiError(
      404,
      'invalid_request_error',
      'model_not_found',
      'model',
      `The model '${clip(id)}' does not exist`,
    );
  return jsonResponse(toWireModel(model));
}

function toWireModel(m: ModelInfo) {
  // intab's own fields (the serving engine, whether the weights are cached and where, the device, the wasm build) ride along
  // only where the engine knows them; so do the catalog's (family, size, memory, …) for a model the
  // catalog knows, the engine's context window winning over the catalog's (an app may configure less).
  const extra = {
    engine: m.engine,
    cached: m.cached,
    model_cache: m.modelCache,
    device: m.device,
    threads: m.threads,
    wasm: m.wasm,
  };
  const entry = catalogEntry(m.id);
  return {
    id: m.id,
    object: 'model',
    created: m.created,
    owned_by: m.owned_by,
    ...(entry ? { ...catalogWireFields(entry), context_window: m.contextWindow } : {}),
    ...Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)),
  };
}
