/**
 * URL models through wllama's own `ModelManager`: shards downloaded in parallel into its cache (the
 * Origin Private File System, else the Cache API, else memory: cache/model-cache.ts), and found there next
 * time, offline included.
 */

import type { ModelCache, ModelCacheKind } from './cache';
import type { LlamaLogger } from './llama-log';
import type { ModelFetcher } from './wllama-options';

type WllamaModule = typeof import('@wllama/wllama/esm/index.js');

/**
 * @example
 * const fetcher = wllamaModelFetcher(() => import('@wllama/wllama/esm/index.js'), () => starter.modelCache(), log.logger);
 * const blobs = await fetcher.fetch(url, { progress, signal });
 */
export function wllamaModelFetcher(
  lib: () => Promise<WllamaModule>,
  cache: () => Promise<ModelCache>,
  logger: LlamaLogger,
): ModelFetcher {
  let manager: Promise<InstanceType<WllamaModule['ModelManager']>> | null = null;
  let kind: ModelCacheKind | null = null;
  const get = () => {
    manager ??= Promise.all([lib(), cache()]).then(
      ([{ ModelManager }, store]) => {
        kind = store.kind;
        return new ModelManager({
          logger,
          parallelDownloads: 3,
          allowOffline: true,
          cacheManager: store.manager,
        });
      },
      (err: unknown) => {
        manager = null;
        throw err;
      },
    );
    return manager;
  };
  return {
    async fetch(url, { progress, signal }) {
      const model = await (await get()).getModelOrDownload({ url }, { progressCallback: progress, signal });
      return model.open();
    },
    cacheKind: () => kind,
    async cachedUrls() {
      const models = await (await get()).getModels();
      return new Set(models.map((m) => m.url));
    },
    async forget(url) {
      // Invalid ones too: a copy wllama itself finds incomplete is no more use.
      const models = await (await get()).getModels({ includeInvalid: true });
      await Promise.all(models.filter((m) => m.url === url).map((m) => m.remove()));
    },
  };
}
