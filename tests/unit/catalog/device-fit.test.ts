/**
 * What fits this device (src/catalog/device-fit.ts, recommend.ts): judged from faked browser facts,
 * with examples for each rule and properties over every catalog model and random devices.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CatalogModel,
  catalogEntry,
  type DeviceFacts,
  deviceFit,
  downloadSize,
  FIRST_DOWNLOAD_MAX_BYTES,
  MODEL_CATALOG,
  recommendationReason,
  recommendModel,
  SOFTWARE_ADAPTER_REASON,
} from '../../../src/catalog';

const MB = 1 << 20;
const GB = 1 << 30;
const entry = (id: string): CatalogModel => {
  const m = catalogEntry(id);
  if (!m) throw new Error(`not in the catalog: ${id}`);
  return m;
};
/** A discrete-GPU desktop: f16, 2 GB bindings, 8+ GB of memory, lots of storage. */
const BIG: DeviceFacts = {
  webgpu: { shaderF16: true, maxBufferSize: 4 * GB, maxStorageBufferBindingSize: 2 * GB },
  deviceMemoryGB: 8,
  storageFreeBytes: 100 * GB,
};
/** A phone-class adapter: no f16, WebGPU's default limits (256 MB buffers, 128 MB bindings). */
const SMALL: DeviceFacts = {
  webgpu: { shaderF16: false, maxBufferSize: 256 * MB, maxStorageBufferBindingSize: 128 * MB },
  deviceMemoryGB: 4,
  storageFreeBytes: 20 * GB,
};
const NO_GPU: DeviceFacts = { webgpu: null, deviceMemoryGB: 8, storageFreeBytes: 50 * GB };
const RANK = { 'cannot-run': 0, 'may-not-fit': 1, fits: 2 } as const;

describe('deviceFit, rule by rule', () => {
  it('says a web-llm model cannot run without WebGPU, and points to the CPU models', () => {
    expect(deviceFit(entry('Qwen3-0.6B-q4f32_1-MLC'), NO_GPU)).toEqual({
      level: 'cannot-run',
      reason: 'Needs WebGPU, which this browser does not offer: pick a CPU (GGUF) model.',
    });
    expect(deviceFit(entry('Qwen2.5-0.5B-Instruct-Q4_K_M'), NO_GPU).level).toBe('fits');
  });

  it('says an f16 build cannot run without shader-f16 (web-llm does not declare it on this one), and its f32 build can', () => {
    const f16 = deviceFit(entry('Llama-3.2-1B-Instruct-q4f16_1-MLC'), SMALL);
    expect(f16).toEqual({
      level: 'cannot-run',
      reason: "Needs the GPU feature 'shader-f16', which this GPU lacks: pick an f32 build (q4f32).",
    });
    expect(deviceFit(entry('Llama-3.2-1B-Instruct-q4f32_1-MLC'), SMALL).level).not.toBe('cannot-run');
    expect(deviceFit(entry('Llama-3.2-1B-Instruct-q4f16_1-MLC'), BIG).level).toBe('fits');
  });

  it("says a small binding limit may not fit builds web-llm does not mark low-resource, and below web-llm's floor nothing runs", () => {
    const small = deviceFit(entry('Llama-3.1-8B-Instruct-q4f32_1-MLC'), SMALL);
    expect(small.level).toBe('may-not-fit');
    expect(small.reason).toBe(
      'This GPU binds at most 128 MB per buffer; web-llm makes only its low-resource builds for that.',
    );
    const tiny = {
      ...SMALL,
      webgpu: { shaderF16: true, maxBufferSize: 128 * MB, maxStorageBufferBindingSize: 64 * MB },
    };
    expect(deviceFit(entry('SmolLM2-135M-Instruct-q0f32-MLC'), tiny)).toEqual({
      level: 'cannot-run',
      reason: 'This GPU allows buffers of 128 MB, below the 256 MB web-llm needs.',
    });
  });

  it('weighs the memory need against deviceMemory: fits, or may not fit, never "cannot" on memory alone', () => {
    expect(deviceFit(entry('Llama-3.1-70B-Instruct-q3f16_1-MLC'), BIG)).toMatchObject({
      level: 'may-not-fit',
      reason: expect.stringMatching(/^Needs about 3\d\.\d GB of GPU memory; this device has at least 8 GB/),
    });
    expect(deviceFit(entry('Qwen3-0.6B-q4f16_1-MLC'), BIG)).toEqual({
      level: 'fits',
      reason: 'Needs about 1.4 GB of GPU memory; this device has at least 8 GB.',
    });
    const unknown = { ...BIG, deviceMemoryGB: null };
    expect(deviceFit(entry('Qwen3-0.6B-q4f16_1-MLC'), unknown).reason).toMatch(/does not say how much/);
  });

  it('says a download larger than the storage left cannot run, unless the model is cached already', () => {
    const full = { ...NO_GPU, storageFreeBytes: 500 * MB };
    expect(deviceFit(entry('Llama-3.2-1B-Instruct-Q4_K_M'), full)).toEqual({
      level: 'cannot-run',
      reason: 'The download is 770 MB, and this site may store only 500 MB more: free some space first.',
    });
    expect(deviceFit(entry('Llama-3.2-1B-Instruct-Q4_K_M'), full, true).level).toBe('fits');
  });
});

const facts: fc.Arbitrary<DeviceFacts> = fc.record({
  webgpu: fc.option(
    fc.record({
      shaderF16: fc.boolean(),
      maxBufferSize: fc.integer({ min: 64, max: 8192 }).map((n) => n * MB),
      maxStorageBufferBindingSize: fc.integer({ min: 64, max: 4096 }).map((n) => n * MB),
    }),
  ),
  deviceMemoryGB: fc.option(fc.constantFrom(0.25, 0.5, 1, 2, 4, 8)),
  storageFreeBytes: fc.option(fc.integer({ min: 0, max: 200_000 }).map((n) => n * MB)),
});
const model = fc.constantFrom(...MODEL_CATALOG);

describe('deviceFit, properties over the catalog and random devices (500 runs each)', () => {
  it('always gives a reason, a sentence', () => {
    fc.assert(
      fc.property(model, facts, fc.boolean(), (m, f, cached) => {
        const { reason } = deviceFit(m, f, cached);
        expect(reason).toMatch(/^[A-Z'].*\.$/);
      }),
      { numRuns: 500 },
    );
  });

  it('never gets worse when the device gets more (memory, storage, f16, limits)', () => {
    fc.assert(
      fc.property(model, facts, (m, f) => {
        const more: DeviceFacts = {
          webgpu: f.webgpu && {
            shaderF16: true,
            maxBufferSize: f.webgpu.maxBufferSize * 2,
            maxStorageBufferBindingSize: f.webgpu.maxStorageBufferBindingSize * 2,
          },
          deviceMemoryGB: f.deviceMemoryGB && f.deviceMemoryGB * 2,
          storageFreeBytes: f.storageFreeBytes && f.storageFreeBytes * 2,
        };
        expect(RANK[deviceFit(m, more).level]).toBeGreaterThanOrEqual(RANK[deviceFit(m, f).level]);
      }),
      { numRuns: 500 },
    );
  });

  it('says "cannot run" for every f16 build on an adapter without shader-f16, and for no GGUF for lack of a GPU', () => {
    fc.assert(
      fc.property(model, facts, (m, f) => {
        const fit = deviceFit(m, f, true);
        if (m.engine === 'web-llm' && (!f.webgpu || (m.needsShaderF16 && !f.webgpu.shaderF16)))
          expect(fit.level).toBe('cannot-run');
        if (m.engine === 'wllama') expect(fit.reason).not.toMatch(/WebGPU|shader-f16/);
      }),
      { numRuns: 500 },
    );
  });

  it('recommends a model that fits, with no fitting general chat model larger than it', () => {
    fc.assert(
      fc.property(facts, (f) => {
        const pick = recommendModel(MODEL_CATALOG, f);
        if (!pick) return;
        expect(deviceFit(pick, f).level).toBe('fits');
        expect(pick.kind).toBe('chat');
      }),
      { numRuns: 200 },
    );
  });
});

describe('recommendModel', () => {
  it('picks a WebGPU model on a big GPU, a CPU model without WebGPU, and an f32 build without shader-f16', () => {
    const big = recommendModel(MODEL_CATALOG, BIG);
    expect(big?.engine).toBe('web-llm');
    expect(big?.vramRequiredMB).toBeLessThanOrEqual(8 * 1024 * 0.6);
    expect(recommendModel(MODEL_CATALOG, NO_GPU)?.engine).toBe('wllama');
    const noF16 = {
      ...BIG,
      webgpu: { shaderF16: false, maxBufferSize: 4 * GB, maxStorageBufferBindingSize: 2 * GB },
    };
    expect(recommendModel(MODEL_CATALOG, noF16)?.needsShaderF16).toBe(false);
    // The WebGPU model wins over a larger CPU one; the CPU fallback stays small enough to be quick.
    expect(recommendModel(MODEL_CATALOG, SMALL)?.id).toBe('Qwen2.5-1.5B-Instruct-q4f32_1-MLC');
    expect(recommendModel(MODEL_CATALOG, NO_GPU)?.id).toBe('SmolLM2-1.7B-Instruct-Q4_K_M');
    // Not the largest that fits (Mistral 7B, ~4 GB): the largest within a first download's budget.
    expect(big?.id).toBe('Llama-3.2-3B-Instruct-q4f16_1-MLC');
    expect(downloadSize(big as CatalogModel)).toBeLessThanOrEqual(FIRST_DOWNLOAD_MAX_BYTES);
  });

  it('treats a software adapter (SwiftShader) as no GPU: a small CPU build, and says why', () => {
    const swiftShader: DeviceFacts = {
      ...BIG,
      webgpu: { ...(BIG.webgpu as object), fallback: true } as DeviceFacts['webgpu'],
    };
    const pick = recommendModel(MODEL_CATALOG, swiftShader);
    expect(pick?.engine).toBe('wllama');
    expect(pick?.downloadBytes).toBeLessThanOrEqual(FIRST_DOWNLOAD_MAX_BYTES);
    expect(recommendationReason(pick as CatalogModel, swiftShader)).toMatch(
      /^A CPU \(GGUF\) build: .*software one/,
    );
    // Its web-llm builds are judged slow here, not fitting, with the reason.
    expect(deviceFit(entry('Qwen3-0.6B-q4f32_1-MLC'), swiftShader)).toEqual({
      level: 'may-not-fit',
      reason: SOFTWARE_ADAPTER_REASON,
    });
    expect(recommendationReason(recommendModel(MODEL_CATALOG, BIG) as CatalogModel, BIG)).toMatch(
      /^A WebGPU build: .* GB download/,
    );
  });

  it('keeps every recommendation within a first download, on every device the catalog fits', () => {
    fc.assert(
      fc.property(facts, (f) => {
        const pick = recommendModel(MODEL_CATALOG, f);
        if (!pick) return;
        const small = MODEL_CATALOG.some(
          (m) =>
            m.kind === 'chat' &&
            (downloadSize(m) ?? Infinity) <= FIRST_DOWNLOAD_MAX_BYTES &&
            deviceFit(m, f).level === 'fits',
        );
        if (small) expect(downloadSize(pick)).toBeLessThanOrEqual(FIRST_DOWNLOAD_MAX_BYTES);
      }),
      { numRuns: 200 },
    );
  });

  it('recommends nothing when nothing fits (no GPU, no storage)', () => {
    expect(
      recommendModel(MODEL_CATALOG, { webgpu: null, deviceMemoryGB: 1, storageFreeBytes: 0 }),
    ).toBeNull();
  });
});
