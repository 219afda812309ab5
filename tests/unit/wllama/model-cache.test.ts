/**
 * The GGUF weight cache where OPFS is missing or refuses (issue 42): WebKitGTK has no
 * `navigator.storage`, Safari's Private Browsing rejects `getDirectory()`, and wllama's default cache
 * then threw "No supported storage backend found" for every model. The store is chosen by what
 * opens; wllama's own CacheManager drives each backend here, as it does in the engine.
 */
import { CacheManager } from '@wllama/wllama/esm/index.js';
import { describe, expect, it } from 'vitest';
import {
  browserProbes,
  type CacheManagerClass,
  type CacheProbes,
  openModelCache,
} from '../../../src/engine/wllama/cache/model-cache';
import { CacheApiBackend, MemoryBackend } from '../../../src/engine/wllama/cache/storage-backends';
import { wllamaListing } from '../../../src/engine/wllama/wllama-listing';

const Manager = CacheManager as unknown as CacheManagerClass;

/** The Cache API's semantics that matter here: put consumes the body, keys are URLs. */
class MapCache {
  readonly entries = new Map<string, { body: Uint8Array }>();
  async match(url: string) {
    const hit = this.entries.get(url);
    return hit ? new Response(hit.body.slice()) : undefined;
  }
  async put(url: string, res: Response) {
    this.entries.set(url, { body: new Uint8Array(await res.arrayBuffer()) });
  }
  async delete(url: string) {
    return this.entries.delete(url);
  }
  async keys() {
    return [...this.entries.keys()].map((u) => new Request(u));
  }
}

const streamOf = (...parts: string[]) => new Blob(parts).stream();

describe.each([
  { name: 'the Cache API', make: () => new CacheApiBackend(new MapCache() as unknown as Cache) },
  { name: 'memory', make: () => new MemoryBackend() },
])('model files in $name', ({ make }) => {
  it('are written from a stream, read back whole, listed with their size and deleted', async () => {
    const backend = make();
    await backend.write('abc_model.gguf', streamOf('GGUF', '-weights'));
    expect(await backend.getSize('abc_model.gguf')).toBe(12);
    expect(await (await backend.read('abc_model.gguf'))?.text()).toBe('GGUF-weights');
    expect(await backend.list()).toEqual([{ key: 'abc_model.gguf', size: 12 }]);
    await backend.delete('abc_model.gguf');
    expect(await backend.read('abc_model.gguf')).toBeNull();
    expect(await backend.getSize('abc_model.gguf')).toBe(-1);
  });

  it("serve wllama's CacheManager: a file and its metadata, listed as one entry", async () => {
    const manager = new Manager([make()]);
    await manager.write('k_m.gguf', streamOf('1234'), {
      etag: 'e',
      originalSize: 4,
      originalURL: 'http://x/m.gguf',
    });
    const list = await manager.list();
    expect(list).toEqual([
      { name: 'k_m.gguf', size: 4, metadata: { etag: 'e', originalSize: 4, originalURL: 'http://x/m.gguf' } },
    ]);
    expect(await (await manager.open('k_m.gguf'))?.text()).toBe('1234');
  });
});

describe('a Cache API write that never finished', () => {
  it('reads as absent (its size is written only after its last byte)', async () => {
    const cache = new MapCache();
    const backend = new CacheApiBackend(cache as unknown as Cache);
    const broken = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array([1, 2]));
        c.error(new Error('tab closed'));
      },
    });
    await expect(backend.write('half.gguf', broken)).rejects.toThrow();
    expect(await backend.getSize('half.gguf')).toBe(-1);
    expect(await backend.read('half.gguf')).toBeNull();
    expect(await backend.list()).toEqual([]);
  });
});

describe('openModelCache', () => {
  const probes = (opfs: boolean, cache: boolean): CacheProbes => ({
    opfs: async () => opfs,
    cacheApi: async () => (cache ? (new MapCache() as unknown as Cache) : null),
  });

  it('takes the Cache API where OPFS will not open (Private Browsing, WebKitGTK)', async () => {
    expect((await openModelCache(Manager, probes(false, true))).kind).toBe('cache-api');
  });

  it('takes memory where neither opens', async () => {
    const { kind, manager } = await openModelCache(Manager, probes(false, false));
    expect(kind).toBe('memory');
    await manager.write('m', streamOf('x'), { etag: '', originalSize: 1, originalURL: '' });
    expect(await manager.getSize('m')).toBe(1);
  });

  it("falls through when OPFS opened but wllama's own backends refuse (no OPFS in this realm)", async () => {
    // Node has no navigator.storage: wllama's default CacheManager throws here, as in WebKitGTK.
    expect(() => new Manager()).toThrow(/No supported storage backend/);
    expect((await openModelCache(Manager, probes(true, true))).kind).toBe('cache-api');
  });
});

describe("the browser's answers, where it has neither store (Node, as WebKitGTK)", () => {
  it('say no OPFS and no Cache API, so openModelCache keeps the weights in memory', async () => {
    expect(await browserProbes.opfs()).toBe(false);
    expect(await browserProbes.cacheApi()).toBeNull();
    expect((await openModelCache(Manager)).kind).toBe('memory');
  });
});

describe('/v1/models', () => {
  it('says where a URL model is kept once the cache has opened, and nothing for a file model', () => {
    expect(wllamaListing({ id: 'u', url: '/m.gguf' }, { modelCache: 'memory' }).modelCache).toBe('memory');
    expect(wllamaListing({ id: 'u', url: '/m.gguf' }).modelCache).toBeUndefined();
    expect(
      wllamaListing({ id: 'f', files: [new Blob()] }, { modelCache: 'memory' }).modelCache,
    ).toBeUndefined();
  });
});
