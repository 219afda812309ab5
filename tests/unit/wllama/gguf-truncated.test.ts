/**
 * A GGUF cut inside its tensor data (a download or a cached copy that stopped short) is refused
 * before llama.cpp runs it, with a load error that says so (issue 43): llama.cpp loaded such a file
 * and then failed each request with `GGML_ASSERT(chat_templates != nullptr)`. The cached copy is
 * dropped, so the next load downloads the file again.
 */
import { CacheManager } from '@wllama/wllama/esm/index.js';
import { describe, expect, it } from 'vitest';
import { type CacheManagerClass, openModelCache } from '../../../src/engine/wllama/cache/model-cache';
import { checkGgufComplete, readGgufHeader } from '../../../src/engine/wllama/gguf-header';
import { wllamaModelFetcher } from '../../../src/engine/wllama/model-fetcher';
import type { ModelFetcher, WllamaModelSpec } from '../../../src/engine/wllama/wllama-options';
import { type GgufTensor, ggufBytes } from '../../helpers/tiny-gguf';
import { fakeWllamaEngine } from '../../helpers/wllama-engine-rig';

const F32 = 0;
const Q8_0 = 8;
const Q4_K = 12;
const Q6_K = 14;

/** Three tensors, the last of 210 bytes: its data ends 14 bytes before the file's 32-byte padding. */
const TENSORS: GgufTensor[] = [
  { name: 'norm.weight', dims: [64], type: F32, bytes: 64 * 4 },
  { name: 'q.weight', dims: [64, 4], type: Q8_0, bytes: 2 * 34 * 4 },
  { name: 'k.weight', dims: [256, 2], type: Q4_K, bytes: 144 * 2 },
  { name: 'out.weight', dims: [256, 1], type: Q6_K, bytes: 210 },
];

function gguf(tensors = TENSORS): Uint8Array<ArrayBuffer> {
  return ggufBytes(
    [
      ['general.architecture', 'llama'],
      ['tokenizer.ggml.model', 'gpt2'],
      ['tokenizer.ggml.tokens', ['a', 'b']],
    ],
    tensors,
  );
}

const whole = gguf();
const need = whole.length - 14;

describe('the GGUF header reader', () => {
  it("says how many bytes the file's tensors need, as ggml sizes each type's blocks", async () => {
    const header = await readGgufHeader(new Blob([whole]));
    expect(header.tensorCount).toBe(4);
    expect(header.expectedBytes).toBe(need);
    expect(() => checkGgufComplete(header, need)).not.toThrow();
    expect(() => checkGgufComplete(header, need - 1)).toThrow(
      `The GGUF file is truncated: ${need - 1} bytes, its tensors need ${need}.`,
    );
  });

  it('skips the check for a tensor type it has no size for, and for a file without tensors', async () => {
    const unknown = await readGgufHeader(new Blob([gguf([{ name: 't', dims: [32], type: 41, bytes: 64 }])]));
    expect(unknown.expectedBytes).toBeNull();
    expect(() => checkGgufComplete(unknown, 1)).not.toThrow();
    expect((await readGgufHeader(new Blob([ggufBytes([['general.name', 'x']])]))).expectedBytes).toBeNull();
  });
});

/** A URL model fetched by a fake fetcher, which serves `bytes` and records what is dropped from its cache. */
function urlRig(bytes: Uint8Array<ArrayBuffer>) {
  const forgotten: string[] = [];
  let fetched = 0;
  const fetcher: ModelFetcher = {
    async fetch() {
      fetched++;
      return [new Blob([bytes])];
    },
    async cachedUrls() {
      return new Set(['http://localhost/m.gguf']);
    },
    async forget(url) {
      forgotten.push(url);
    },
  };
  const rig = fakeWllamaEngine({ models: [{ id: 'm', url: '/m.gguf' }], fetchModel: fetcher });
  return { ...rig, forgotten, fetched: () => fetched };
}

function fileRig(files: Blob[]) {
  const spec: WllamaModelSpec = { id: 'm', files };
  return fakeWllamaEngine({ models: [spec] });
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as { status: number; code: string; message: string },
  );

describe('loading a GGUF cut inside its tensor data', () => {
  it('fails with a load error that says it is truncated, and never starts llama.cpp', async () => {
    const cut = whole.subarray(0, need - 100);
    const { engine, fakes } = fileRig([new Blob([cut])]);
    const err = await failure(engine.load('m'));
    expect(err?.status).toBe(500);
    expect(err?.code).toBe('model_load_failed');
    expect(err?.message).toBe(
      `The model 'm' is not a usable GGUF file: The GGUF file is truncated: ${cut.length} bytes, its tensors need ${need}.`,
    );
    expect(fakes).toHaveLength(0);
  });

  it('loads the whole file, and one whose last padding is missing (llama.cpp needs no more)', async () => {
    for (const bytes of [whole, whole.subarray(0, need)]) {
      const { engine, fakes } = fileRig([new Blob([bytes])]);
      await engine.load('m');
      expect(fakes).toHaveLength(1);
    }
  });

  it("checks a split model's every shard", async () => {
    const { engine, fakes } = fileRig([new Blob([whole]), new Blob([whole.subarray(0, need - 1)])]);
    expect((await failure(engine.load('m')))?.message).toMatch(/truncated/);
    expect(fakes).toHaveLength(0);
  });

  it('drops the cut copy from the cache, so the next load downloads it again', async () => {
    const { engine, fakes, forgotten, fetched } = urlRig(whole.subarray(0, need - 1));
    expect((await failure(engine.load('m')))?.code).toBe('model_load_failed');
    expect(forgotten).toEqual(['http://localhost/m.gguf']);
    expect(fakes).toHaveLength(0);
    await failure(engine.load('m'));
    expect(fetched()).toBe(2);
  });

  it("wllama's cache forgets the URL's files", async () => {
    const Manager = CacheManager as unknown as CacheManagerClass;
    const store = await openModelCache(Manager, { opfs: async () => false, cacheApi: async () => null });
    const url = 'http://localhost/m.gguf';
    const body = whole.subarray(0, need - 1);
    await store.manager.write('k_m.gguf', new Blob([body]).stream(), {
      etag: '',
      originalSize: body.length,
      originalURL: url,
    });
    const fetcher = wllamaModelFetcher(
      () => import('@wllama/wllama/esm/index.js'),
      async () => store,
      { debug() {}, log() {}, warn() {}, error() {} },
    );
    expect(await fetcher.cachedUrls()).toEqual(new Set([url]));
    await fetcher.forget?.(url);
    expect(await fetcher.cachedUrls()).toEqual(new Set());
    expect(await store.manager.list()).toEqual([]);
  });
});
