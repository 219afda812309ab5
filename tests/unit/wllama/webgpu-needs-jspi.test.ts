/**
 * llama.cpp's WebGPU backend lives in wllama's stock build, which waits on the GPU from inside wasm
 * through JSPI (issue 42): Chromium has it, Firefox and Safari do not. There, a model on `device:
 * 'auto'` runs on the CPU even when WebGPU is there, and one configured for WebGPU is a 503 that says
 * why, before any load.
 */
import { describe, expect, it } from 'vitest';
import { hasJspi } from '../../../src/engine/wllama/jobs/llama-start';
import { tinyGguf } from '../../helpers/tiny-gguf';
import { fakeWllamaEngine } from '../../helpers/wllama-engine-rig';

const engine = (device: 'auto' | 'webgpu', jspi: boolean) =>
  fakeWllamaEngine({
    models: [{ id: 'm', files: [tinyGguf()], device }],
    hasWebGpuF16: async () => true,
    hasJspi: () => jspi,
  }).engine;

describe("wllama's WebGPU only with JSPI", () => {
  it('runs an auto model on WebGPU with JSPI and on the CPU without it', async () => {
    const withJspi = engine('auto', true);
    await withJspi.load('m');
    expect(withJspi.models()[0]?.device).toBe('webgpu');
    const without = engine('auto', false);
    await without.load('m');
    expect(without.models()[0]?.device).toBe('cpu');
  });

  it('refuses a model configured for WebGPU without JSPI with a 503 naming JSPI', async () => {
    const err = await engine('webgpu', false)
      .preflight('m')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: 'webgpu_unavailable' });
    expect(String((err as Error).message)).toMatch(/JSPI/);
    await expect(engine('webgpu', true).preflight('m')).resolves.toBeUndefined();
  });

  it('reads JSPI from WebAssembly.Suspending (Node 20 has none)', () => {
    expect(hasJspi()).toBe(typeof (WebAssembly as { Suspending?: unknown }).Suspending === 'function');
    expect(hasJspi()).toBe(false);
  });
});
