/**
 * How a registered GGUF model is listed by `/v1/models`, before and after it loads. A leaf module
 * (no wllama import), so the engine worker lists GGUF models without fetching the engine's chunk.
 */
import type { ModelInfo } from '../types';
import type { WllamaModelSpec } from './wllama-options';

/** The context size a model runs with when its spec names none. */
export const DEFAULT_CONTEXT = 4096;

/** What is known of a model beyond its spec. */
export interface ListingFacts {
  created?: number;
  kind?: 'chat' | 'embeddings';
  cached?: boolean;
  /** Where downloads are kept (cache/model-cache.ts), for a URL model once the cache has opened. */
  modelCache?: string;
  contextSize?: number;
  device?: string;
  threads?: number;
  /** Which llama.cpp wasm runs it once loaded: `simd` (intab's, threaded), `simd-st` (intab's, 1 thread), `stock` (wllama's). */
  wasm?: string;
}

/** When GGUF models registered at start-up say they were created (the engine has no date for them). */
const STARTUP = Math.floor(Date.now() / 1000);

/**
 * @example
 * wllamaListing({ id: 'tiny', url: '/m.gguf' }).capabilities; // ['chat']
 */
export function wllamaListing(spec: WllamaModelSpec, facts: ListingFacts = {}): ModelInfo {
  return {
    id: spec.id,
    owned_by: 'wllama',
    created: facts.created ?? STARTUP,
    contextWindow: facts.contextSize ?? spec.contextSize ?? DEFAULT_CONTEXT,
    vision: false,
    capabilities: [spec.kind ?? facts.kind ?? 'chat'],
    engine: 'wllama',
    ...(spec.files ? { cached: true } : facts.cached !== undefined ? { cached: facts.cached } : {}),
    ...(spec.url && facts.modelCache ? { modelCache: facts.modelCache } : {}),
    ...(facts.device ? { device: facts.device } : {}),
    ...(facts.threads ? { threads: facts.threads } : {}),
    ...(facts.wasm ? { wasm: facts.wasm } : {}),
  };
}
