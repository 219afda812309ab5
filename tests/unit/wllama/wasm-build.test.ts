/**
 * Which llama.cpp wasm runs a model (issue 34): intab's SIMD build for CPU models that fit wasm32,
 * wllama's stock build for WebGPU, for big models and when the SIMD build fails to start; `/v1/models`
 * says which one runs.
 */
import { describe, expect, it } from 'vitest';
import {
  chooseWasmBuild,
  WASM32_MAX_MODEL_BYTES,
  type WasmBuild,
} from '../../../src/engine/wllama/wasm-build';
import { tinyGguf } from '../../helpers/tiny-gguf';
import { fakeWllamaEngine } from '../../helpers/wllama-engine-rig';
import { FakeWllama } from '../../helpers/wllama-fakes';

const simd = { wasmUrl: '/simd/wllama.wasm', jsUrl: '/simd/wllama.js' };

describe('chooseWasmBuild', () => {
  it('runs CPU models that fit wasm32 on the SIMD build', () => {
    expect(chooseWasmBuild(simd, { device: 'cpu', modelBytes: 93e6 })).toBe('simd');
    expect(chooseWasmBuild(simd, { device: 'cpu', modelBytes: WASM32_MAX_MODEL_BYTES })).toBe('simd');
  });

  it('keeps the stock build for WebGPU, for models too big for wasm32, and without a SIMD build', () => {
    expect(chooseWasmBuild(simd, { device: 'webgpu', modelBytes: 93e6 })).toBe('stock');
    expect(chooseWasmBuild(simd, { device: 'cpu', modelBytes: WASM32_MAX_MODEL_BYTES + 1 })).toBe('stock');
    expect(chooseWasmBuild(undefined, { device: 'cpu', modelBytes: 93e6 })).toBe('stock');
  });
});

/** An engine whose fakes record the build they were made for; `failSimd` makes the SIMD one fail to load. */
function rig(failSimd: boolean, device: 'cpu' | 'webgpu' = 'cpu') {
  const builds: WasmBuild[] = [];
  const rigged = fakeWllamaEngine({
    models: [{ id: 'm', files: [tinyGguf()], device }],
    hasWebGpuF16: async () => true,
    simdWasm: simd,
    createWllama: (_config, build) => {
      builds.push(build);
      const fake = new FakeWllama();
      if (failSimd && build === 'simd')
        fake.loadModel = async () => {
          throw new Error('WebAssembly.instantiate(): Compiling function failed');
        };
      return fake;
    },
  });
  return { ...rigged, builds };
}

describe('the loader', () => {
  it('starts a CPU model on the SIMD build and lists it as such once loaded', async () => {
    const { engine, builds } = rig(false);
    expect(engine.models().find((m) => m.id === 'm')?.wasm).toBeUndefined();
    await engine.load('m');
    expect(builds).toEqual(['simd']);
    expect(engine.models().find((m) => m.id === 'm')).toMatchObject({ device: 'cpu', wasm: 'simd' });
  });

  it('falls back to the stock build once when the SIMD build fails to start', async () => {
    const { engine, builds } = rig(true);
    await engine.load('m');
    expect(builds).toEqual(['simd', 'stock']);
    expect(engine.models().find((m) => m.id === 'm')).toMatchObject({ wasm: 'stock' });
  });

  it('starts a WebGPU model on the stock build (the SIMD build has no WebGPU)', async () => {
    const { engine, builds } = rig(false, 'webgpu');
    await engine.load('m');
    expect(builds).toEqual(['stock']);
  });
});
