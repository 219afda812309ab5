/**
 * Issue 43: a lazy chunk kept in the runtime cache is served cache first under its hashed name, so
 * a bad copy failed its feature until site data was cleared. An import of it that fails now drops
 * that chunk's copies (only that chunk's), so the next try fetches it again.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { importLazy, LAZY_ASSET_CACHE } from '../../../src/common/lazy-assets';
import { MemoryCacheStorage } from '../../helpers/cache-storage';

async function storageHolding(paths: string[]): Promise<MemoryCacheStorage> {
  const storage = new MemoryCacheStorage();
  const cache = await storage.open(LAZY_ASSET_CACHE);
  for (const p of paths) await cache.put(`https://app.test${p}`, new Response('kept'));
  vi.stubGlobal('caches', storage);
  return storage;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.doUnmock('gpt-tokenizer/encoding/o200k_base');
  vi.resetModules();
});

describe('importLazy', () => {
  it('drops the failed chunk’s kept copies before the error goes on, and no other chunk’s', async () => {
    const storage = await storageHolding([
      '/assets/pdfjs-Ab12Cd34.js',
      '/app/assets/pdfjs-Bb12Cd34.js',
      '/assets/o200k-Ab12Cd34.js',
      '/assets/web-llm-Ab12Cd34.js',
      '/docs/pdfjs-notes.js',
    ]);
    const failed = new TypeError('Failed to fetch dynamically imported module');
    await expect(importLazy('pdfjs', () => Promise.reject(failed))).rejects.toBe(failed);
    expect(storage.paths(LAZY_ASSET_CACHE)).toEqual([
      '/assets/o200k-Ab12Cd34.js',
      '/assets/web-llm-Ab12Cd34.js',
      '/docs/pdfjs-notes.js',
    ]);
    // A load that works touches nothing.
    expect(await importLazy('o200k', async () => 'module')).toBe('module');
    expect(storage.paths(LAZY_ASSET_CACHE)).toHaveLength(3);
  });

  it('passes the error on where there is no Cache Storage or no runtime cache', async () => {
    const failed = new SyntaxError("Unexpected token '<'");
    await expect(importLazy('wllama', () => Promise.reject(failed))).rejects.toBe(failed);
    vi.stubGlobal('caches', new MemoryCacheStorage());
    await expect(importLazy('wllama', () => Promise.reject(failed))).rejects.toBe(failed);
  });

  it('is what the vector stores’ tokenizer loads through: a failed o200k import drops its copy', async () => {
    const storage = await storageHolding(['/assets/o200k-Ab12Cd34.js', '/assets/pdfjs-Ab12Cd34.js']);
    vi.resetModules();
    vi.doMock('gpt-tokenizer/encoding/o200k_base', () => {
      throw new SyntaxError("Unexpected token '<'");
    });
    const { loadTokenizer } = await import('../../../src/core/vector-stores/chunker');
    await expect(loadTokenizer()).rejects.toThrow();
    expect(storage.paths(LAZY_ASSET_CACHE)).toEqual(['/assets/pdfjs-Ab12Cd34.js']);
  });
});
