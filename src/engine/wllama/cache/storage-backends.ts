/**
 * Where downloaded GGUF weights are kept when the Origin Private File System is not there or will
 * not open (issue 42): WebKitGTK has no `navigator.storage`; Safari's Private Browsing rejects
 * `navigator.storage.getDirectory()`. wllama's default cache then throws "No supported storage
 * backend found" and no GGUF model loads. These backends have the shape wllama's `CacheManager`
 * takes (its `StorageBackend`, not exported by the package, so it is restated here).
 */

/** wllama's `StorageBackend` (`@wllama/wllama/src/storage/index.ts`), as `CacheManager` calls it. */
export interface StorageBackendLike {
  isSupported(): boolean;
  /** The file, or null when there is none under `key`. */
  read(key: string): Promise<Blob | null>;
  /** Writes `stream` under `key`, replacing what was there. */
  write(key: string, stream: ReadableStream): Promise<void>;
  /** The stored size in bytes, or -1 when there is none under `key`. */
  getSize(key: string): Promise<number>;
  list(): Promise<Array<{ key: string; size: number }>>;
  delete(key: string): Promise<void>;
}

/** The name of the Cache API cache that holds model files. */
export const MODEL_CACHE_NAME = 'intab-models';

/** Entries live under this path of the origin; no request is ever made to it. */
const ENTRY_PATH = '/.intab-model-cache/';
/** Each file's size, written once its bytes are all in: a partial write has none, so reads -1. */
const SIZE_PATH = '/.intab-model-cache-size/';

const entryUrl = (path: string, key: string) =>
  new URL(`${path}${encodeURIComponent(key)}`, globalThis.location?.href ?? 'http://localhost/').href;

/**
 * Model files in the Cache API (every browser has it in a secure context, Safari's Private Browsing
 * included, where it is kept in memory for the session). The body is stored as it streams in: the
 * file is never held whole in JavaScript.
 *
 * @example
 * new CacheManager([new CacheApiBackend(await caches.open(MODEL_CACHE_NAME))]);
 */
export class CacheApiBackend implements StorageBackendLike {
  constructor(private readonly cache: Cache) {}

  isSupported(): boolean {
    return true;
  }

  async read(key: string): Promise<Blob | null> {
    if ((await this.getSize(key)) < 0) return null;
    const res = await this.cache.match(entryUrl(ENTRY_PATH, key));
    return res ? res.blob() : null;
  }

  async write(key: string, stream: ReadableStream): Promise<void> {
    await this.cache.delete(entryUrl(SIZE_PATH, key));
    let bytes = 0;
    const counted = stream.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    await this.cache.put(entryUrl(ENTRY_PATH, key), new Response(counted));
    await this.cache.put(entryUrl(SIZE_PATH, key), new Response(String(bytes)));
  }

  async getSize(key: string): Promise<number> {
    const res = await this.cache.match(entryUrl(SIZE_PATH, key));
    const size = res ? Number(await res.text()) : Number.NaN;
    return Number.isSafeInteger(size) && size >= 0 ? size : -1;
  }

  async list(): Promise<Array<{ key: string; size: number }>> {
    const out: Array<{ key: string; size: number }> = [];
    for (const req of await this.cache.keys()) {
      const { pathname } = new URL(req.url);
      if (!pathname.startsWith(SIZE_PATH)) continue;
      const key = decodeURIComponent(pathname.slice(SIZE_PATH.length));
      const size = await this.getSize(key);
      if (size >= 0) out.push({ key, size });
    }
    return out;
  }

  async delete(key: string): Promise<void> {
    await this.cache.delete(entryUrl(SIZE_PATH, key));
    await this.cache.delete(entryUrl(ENTRY_PATH, key));
  }
}

/**
 * Model files in memory, for this engine worker's life: where neither OPFS nor the Cache API will
 * open. A model is downloaded again after a reload; within a session it is downloaded once.
 *
 * @example
 * new CacheManager([new MemoryBackend()]);
 */
export class MemoryBackend implements StorageBackendLike {
  private readonly files = new Map<string, Blob>();

  isSupported(): boolean {
    return true;
  }

  async read(key: string): Promise<Blob | null> {
    return this.files.get(key) ?? null;
  }

  async write(key: string, stream: ReadableStream): Promise<void> {
    this.files.delete(key);
    // A Blob of the chunks as they came: one copy, which the engine reads from.
    this.files.set(key, await new Response(stream).blob());
  }

  async getSize(key: string): Promise<number> {
    return this.files.get(key)?.size ?? -1;
  }

  async list(): Promise<Array<{ key: string; size: number }>> {
    return [...this.files].map(([key, blob]) => ({ key, size: blob.size }));
  }

  async delete(key: string): Promise<void> {
    this.files.delete(key);
  }
}
