/**
 * The picker's grouping (src/demo/catalog-groups.ts): families, one entry per model with its builds
 * inside, the recommended model first, cached builds marked and chosen first, and the search.
 */
import { describe, expect, it } from 'vitest';
import { type DeviceFacts, MODEL_CATALOG } from '../../../src/catalog';
import { groupCatalog } from '../../../src/demo/catalog-groups';

const GB = 1 << 30;
const BIG: DeviceFacts = {
  webgpu: { shaderF16: true, maxBufferSize: 4 * GB, maxStorageBufferBindingSize: 2 * GB },
  deviceMemoryGB: 8,
  storageFreeBytes: 100 * GB,
};
const NO_GPU: DeviceFacts = { webgpu: null, deviceMemoryGB: 8, storageFreeBytes: 100 * GB };

describe('groupCatalog', () => {
  it('gives one entry per model, its quantizations and engines as builds, grouped by family', () => {
    const groups = groupCatalog(MODEL_CATALOG, BIG, new Set());
    const entries = groups.flatMap((g) => g.models);
    const names = entries.map((e) => e.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    expect(entries.length).toBeLessThan(MODEL_CATALOG.length / 1.5);
    const llama1b = entries.find((e) => e.name === 'Llama-3.2-1B-Instruct');
    expect(llama1b?.builds.map((b) => b.model.id)).toEqual([
      'Llama-3.2-1B-Instruct-q4f32_1-MLC',
      'Llama-3.2-1B-Instruct-q4f16_1-MLC',
      'Llama-3.2-1B-Instruct-q0f32-MLC',
      'Llama-3.2-1B-Instruct-q0f16-MLC',
      'Llama-3.2-1B-Instruct-Q4_K_M',
    ]);
    expect(llama1b?.builds[4]?.label).toBe('Q4_K_M · CPU · 770 MB download — fits');
    for (const g of groups) for (const e of g.models) expect(e.family).toBe(g.family);
    // No embedding model in a chat picker.
    expect(names.some((n) => /embed/.test(n))).toBe(false);
  });

  it("puts the recommended model's family first and the model first in it, its build selected", () => {
    const [first] = groupCatalog(MODEL_CATALOG, NO_GPU, new Set());
    const top = first?.models[0];
    expect(top?.recommended).toBe(true);
    expect(top?.builds[top.initial]?.model.id).toBe('SmolLM2-1.7B-Instruct-Q4_K_M');
  });

  it('without WebGPU, selects the CPU build and labels every web-llm build "cannot run here"', () => {
    const entries = groupCatalog(MODEL_CATALOG, NO_GPU, new Set()).flatMap((g) => g.models);
    const qwen = entries.find((e) => e.name === 'Qwen2.5-0.5B-Instruct');
    expect(qwen?.builds[qwen.initial]?.model.engine).toBe('wllama');
    for (const b of qwen?.builds ?? [])
      if (b.model.engine === 'web-llm') expect(b.label).toMatch(/— cannot run here$/);
  });

  it('marks a cached build, and shows it first among builds that fit as well', () => {
    const cached = new Set(['Qwen3-0.6B-q4f32_1-MLC']);
    const entries = groupCatalog(MODEL_CATALOG, BIG, cached).flatMap((g) => g.models);
    const qwen3 = entries.find((e) => e.name === 'Qwen3-0.6B');
    expect(qwen3?.cached).toBe(true);
    expect(qwen3?.builds[qwen3.initial]?.model.id).toBe('Qwen3-0.6B-q4f32_1-MLC');
    expect(qwen3?.builds[qwen3.initial]?.label).toContain('· cached');
  });

  it('filters by every word of the search, over name, family, quantization and engine', () => {
    const names = (q: string) =>
      groupCatalog(MODEL_CATALOG, BIG, new Set(), q).flatMap((g) => g.models.map((m) => m.name));
    expect(names('smollm2 360m')).toEqual(['SmolLM2-360M-Instruct']);
    expect(names('phi wllama')).toEqual(['Phi-3.5-mini-instruct', 'Phi-4-mini-instruct']);
    expect(names('no such model')).toEqual([]);
  });
});
