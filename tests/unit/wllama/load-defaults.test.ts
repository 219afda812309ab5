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
  it("a model's loadOptions override intab's KV cache and attention defaults", () => {
    const base = loadParams({ contextSize: 4096, device: 'cpu', threads: 1, embeddings: false });
    expect(base).toMatchObject({ n_threads: 1, n_batch: 512 });
    const custom = loadParams({
      contextSize: 4096,
      device: 'cpu',
      threads: 1,
      embeddings: false,
      extra: { cache_type_k: 'q8_0', cache_type_v: 'q8_0', flash_attn: false },
    });
    expect(custom).toMatchObject({ cache_type_k: 'q8_0', cache_type_v: 'q8_0', flash_attn: false });
  });
});
