/**
 * Where downloaded GGUF weights are kept: OPFS, else the Cache API, else memory (issue 42).
 *
 * @example
 * const { manager, kind } = await openModelCache(CacheManager);
 */
export {
  browserProbes,
  CACHE_PROBE_MS,
  type CacheManagerClass,
  type CacheProbes,
  type ModelCache,
  type ModelCacheKind,
  openModelCache,
} from './model-cache';
export {
  CacheApiBackend,
  MemoryBackend,
  MODEL_CACHE_NAME,
  type StorageBackendLike,
} from './storage-backends';
