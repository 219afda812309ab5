/**
 * Issue 35: a software WebGPU adapter is no GPU. `readDeviceFacts` marks it from the browser's flag
 * (`adapter.info.isFallbackAdapter`, or the older `adapter.isFallbackAdapter`) or from its name
 * (SwiftShader, llvmpipe), and leaves a real GPU unmarked.
 */
import { describe, expect, it } from 'vitest';
import { catalogEntry, deviceFit } from '../../../src/catalog';
import { asEngineSees, isSoftwareAdapter, readDeviceFacts } from '../../../src/demo/device-facts';

const adapter = (info: Record<string, unknown> = {}, more: Record<string, unknown> = {}) => ({
  features: new Set<string>(),
  limits: { maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 28 },
  info,
  ...more,
});

describe('isSoftwareAdapter', () => {
  it('knows SwiftShader, llvmpipe and the browser’s own flag', () => {
    expect(isSoftwareAdapter(adapter({ vendor: 'google', architecture: 'swiftshader' }))).toBe(true);
    expect(
      isSoftwareAdapter(adapter({ vendor: 'mesa', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' })),
    ).toBe(true);
    expect(isSoftwareAdapter(adapter({ isFallbackAdapter: true }))).toBe(true);
    expect(isSoftwareAdapter(adapter({}, { isFallbackAdapter: true }))).toBe(true);
  });

  it('leaves real GPUs alone', () => {
    expect(isSoftwareAdapter(adapter({ vendor: 'nvidia', architecture: 'ampere' }))).toBe(false);
    expect(
      isSoftwareAdapter(adapter({ vendor: 'apple', architecture: 'metal-3', isFallbackAdapter: false })),
    ).toBe(false);
    expect(isSoftwareAdapter({})).toBe(false);
  });
});

describe('readDeviceFacts', () => {
  it('carries the mark into the facts the catalog judges by', async () => {
    const gpu = (a: unknown) => ({ gpu: { requestAdapter: async () => a } }) as never;
    const soft = await readDeviceFacts(gpu(adapter({ architecture: 'swiftshader' })));
    expect(soft.webgpu?.fallback).toBe(true);
    const real = await readDeviceFacts(gpu(adapter({ vendor: 'amd', architecture: 'rdna-3' })));
    expect(real.webgpu?.fallback).toBe(false);
  });
});

describe('asEngineSees (issue 42: web-llm runs in the engine worker)', () => {
  const page = {
    webgpu: {
      shaderF16: true,
      maxBufferSize: 1 << 30,
      maxStorageBufferBindingSize: 1 << 30,
      fallback: false,
    },
    deviceMemoryGB: 8,
    storageFreeBytes: null,
  };

  it("drops the page's WebGPU where the worker has none, so no web-llm build is recommended", () => {
    expect(asEngineSees(page, { available: false, features: [] }).webgpu).toBeNull();
    expect(asEngineSees(page, null).webgpu).toBeNull();
    const qwen = catalogEntry('Qwen3-0.6B-q4f16_1-MLC');
    expect(qwen && deviceFit(qwen, asEngineSees(page, null)).level).toBe('cannot-run');
    expect(qwen && deviceFit(qwen, page).level).not.toBe('cannot-run');
  });

  it("keeps the page's facts where the worker has WebGPU too", () => {
    expect(asEngineSees(page, { available: true, features: [] })).toEqual(page);
    expect(asEngineSees(page, { available: true, features: ['shader-f16'] })).toEqual(page);
  });
});
