/**
 * The real engines as the engine worker holds them: listed from start-up, their code (and their
 * libraries) fetched as separate chunks only when one of their models is used.
 */
import { importLazy } from '../common/lazy-assets';
import { LazyEngine } from './lazy-engine';
import type { ModelInfo } from './types';
import { WEBLLM_CATALOG } from './webllm/webllm-catalog';
import type { WebLLMEngineOptions } from './webllm/webllm-engine-options';
import { toModelInfos } from './webllm/webllm-models';
import { wllamaListing } from './wllama/wllama-listing';
import type { WllamaEngineOptions } from './wllama/wllama-options';

/**
 * web-llm, listed from its prebuilt catalog (plus `opts.models`) without importing it.
 *
 * @example
 * const webllm = lazyWebLLMEngine({ loadTimeoutMs: 60_000 });
 */
export function lazyWebLLMEngine(opts: WebLLMEngineOptions = {}): LazyEngine {
  const base = opts.appConfig?.model_list ?? WEBLLM_CATALOG;
  return new LazyEngine({
    name: 'web-llm',
    listing: () => stamp(toModelInfos([...base, ...(opts.models ?? [])]), 'web-llm'),
    create: async () => {
      // A failed import drops web-llm's kept chunk, so the next try fetches it again.
      const { WebLLMEngine } = await importLazy('web-llm', () => import('./webllm/webllm-engine'));
      return stamped(new WebLLMEngine(opts), 'web-llm');
    },
  });
}

/**
 * wllama (llama.cpp), listed from its model specs; built at start-up when it has models, so
 * `/v1/models` can say which are cached.
 *
 * @example
 * const wllama = lazyWllamaEngine({ models: [{ id: 'tiny', url }], wasmUrl });
 */
export function lazyWllamaEngine(opts: WllamaEngineOptions = {}) {
  return new LazyEngine({
    name: 'wllama',
    eager: (opts.models?.length ?? 0) > 0,
    listing: () => (opts.models ?? []).map((spec) => wllamaListing(spec)),
    create: async () =>
      new (await importLazy('wllama', () => import('./wllama/wllama-engine'))).WllamaEngine(opts),
  });
}

function stamp(models: ModelInfo[], engine: string): ModelInfo[] {
  return models.map((m) => (m.engine ? m : { ...m, engine }));
}

/** `engine`'s listing with the engine's name on each model. */
function stamped<E extends { models(): ModelInfo[] }>(engine: E, name: string): E {
  const models = engine.models.bind(engine);
  engine.models = () => stamp(models(), name);
  return engine;
}
