/**
 * Which store keeps downloaded GGUF weights, chosen by what the browser will really open (issue 42):
 * the Origin Private File System (wllama's own cache), else the Cache API, else memory for the
 * session. A store is tried, not assumed from its presence: Safari's Private Browsing has
 * `navigator.storage.getDirectory` and rejects it.
 */
import type { CacheManager } from '@wllama/wllama/esm/index.js';
import { withTimeout } from '../chunk-queue';
import {
  CacheApiBackend,
  MemoryBackend,
  MODEL_CACHE_NAME,
  type StorageBackendLike,
} from './storage-backends';

/** Where the weights are kept: `opfs` and `cache-api` survive a reload, `memory` does not. */
export type ModelCacheKind = 'opfs' | 'cache-api' | 'memory';

/** The chosen store, as wllama's `CacheManager` drives it. */
export interface ModelCache {
  manager: CacheManager;
  kind: ModelCacheKind;
}

/** wllama's `CacheManager` class: with no argument its default (OPFS), else the backends given. */
export type CacheManagerClass = new (backends?: StorageBackendLike[]) => CacheManager;

/** How long a store may take to open before the next one is tried. */
export const CACHE_PROBE_MS = 5_000;

/** The two questions asked of the browser; tests answer them. */
export interface CacheProbes {
  /** Whether OPFS opens: its root and wllama's `cache` folder in it. */
  opfs(): Promise<boolean>;
  /** The Cache API's cache for models, or null where it will not open. */
  cacheApi(): Promise<Cache | null>;
}

/** The browser's own answers, each bounded by {@link CACHE_PROBE_MS}. */
export const browserProbes: CacheProbes = {
  async opfs() {
    const storage = globalThis.navigator?.storage;
    if (typeof storage?.getDirectory !== 'function') return false;
    try {
      const root = await withTimeout(storage.getDirectory(), CACHE_PROBE_MS, 'The file system');
      await withTimeout(
        root.getDirectoryHandle('cache', { create: true }),
        CACHE_PROBE_MS,
        'The file system',
      );
      return true;
    } catch {
      return false;
    }
  },
  async cacheApi() {
    if (typeof globalThis.caches?.open !== 'function') return null;
    try {
      return await withTimeout(globalThis.caches.open(MODEL_CACHE_NAME), CACHE_PROBE_MS, 'The Cache API');
    } catch {
      return null;
    }
  },
};

/**
 * The first store that opens, and a `CacheManager` over it. Never throws: memory always opens.
 *
 * @example
 * const { manager, kind } = await openModelCache(CacheManager);
 * new ModelManager({ cacheManager: manager });
 */
export async function openModelCache(
  Manager: CacheManagerClass,
  probes: CacheProbes = browserProbes,
): Promise<ModelCache> {
  if (await probes.opfs()) {
    try {
      return { manager: new Manager(), kind: 'opfs' };
    } catch {
      // wllama found no backend of its own after all: fall through to ours.
    }
  }
  const cache = await probes.cacheApi();
  if (cache) return { manager: new Manager([new CacheApiBackend(cache)]), kind: 'cache-api' };
  return { manager: new Manager([new MemoryBackend()]), kind: 'memory' };
}
