/**
 * intab's llama.cpp defaults chosen by measurement (issue 23): threads leave a core to the page, and
 * the KV cache / flash attention settings reach wllama unless the model's `loadOptions` say otherwise.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultThreads, loadParams } from '../../../src/engine/wllama/wllama-instance';
import { tinyGguf } from '../../helpers/tiny-gguf';
import { fakeWllamaEngine } from '../../helpers/wllama-engine-rig';

afterEach(() => vi.unstubAllGlobals());

function machine(cores: number | undefined, isolated: boolean): void {
  vi.stubGlobal('crossOriginIsolated', isolated);
  vi.stubGlobal('navigator', cores === undefined ? undefined : { hardwareConcurrency: cores });
}

describe('default threads', () => {
  it('leaves one core to the page, the service worker and intab when cross-origin isolated', () => {
    // Before issue 23 every core was taken: 2 threads on 2 cores, the setting that collapsed at 4k.
    const cases: [number, number][] = [
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 3],
      [16, 15],
    ];
    for (const [cores, threads] of cases) {
      machine(cores, true);
      expect(defaultThreads(), `${cores} cores`).toBe(threads);
    }
  });

  it('is 1 without cross-origin isolation (no SharedArrayBuffer for threads) or without a core count', () => {
    machine(8, false);
    expect(defaultThreads()).toBe(1);
    machine(undefined, true);
    expect(defaultThreads()).toBe(1);
    machine(0, true);
    expect(defaultThreads()).toBe(1);
  });

  it('is what the engine starts llama.cpp with when a model names no threads; a named count wins', async () => {
    machine(2, true);
    const { engine, fakes } = fakeWllamaEngine();
    await engine.load('m');
    expect(fakes[0]?.loadedWith).toMatchObject({ n_threads: 1 });

    const named = fakeWllamaEngine({ models: [{ id: 'm', files: [tinyGguf()], threads: 2 }] });
    await named.engine.load('m');
    expect(named.fakes[0]?.loadedWith).toMatchObject({ n_threads: 2 });
  });
});

describe('load parameters', () => {
  it("on the CPU: an f32 KV cache and flash attention off (the measured winner); WebGPU keeps llama.cpp's", () => {
    // Before issue 23 neither was set: llama.cpp's f16 cache with flash attention, 3× slower at 4k in wasm.
    const cpu = loadParams({ contextSize: 4096, device: 'cpu', threads: 1, embeddings: false });
    expect(cpu).toMatchObject({ n_threads: 1, cache_type_k: 'f32', cache_type_v: 'f32', flash_attn: false });
    const gpu = loadParams({ contextSize: 4096, device: 'webgpu', threads: 1, embeddings: false });
    expect(gpu).not.toHaveProperty('cache_type_k');
    expect(gpu).not.toHaveProperty('flash_attn');
  });

  it("a model's loadOptions override intab's KV cache and attention defaults", () => {
    const custom = loadParams({
      contextSize: 4096,
      device: 'cpu',
      threads: 1,
      embeddings: false,
      extra: { cache_type_k: 'f16', cache_type_v: 'f16', flash_attn: true },
    });
    expect(custom).toMatchObject({ cache_type_k: 'f16', cache_type_v: 'f16', flash_attn: true });
  });

  it('reach wllama through the engine, with the loadOptions of the model spec on top', async () => {
    machine(2, true);
    const { engine, fakes } = fakeWllamaEngine({
      models: [{ id: 'm', files: [tinyGguf()], device: 'cpu', loadOptions: { cache_type_v: 'q8_0' } }],
    });
    await engine.load('m');
    expect(fakes[0]?.loadedWith).toMatchObject({
      cache_type_k: 'f32',
      cache_type_v: 'q8_0',
      flash_attn: false,
    });
  });
});
