/**
 * The model catalog (src/catalog, `intab/catalog`): every web-llm prebuilt with the facts web-llm's
 * own records give, parsed names that group builds of one model, and the curated GGUF list's URLs.
 */
import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { catalogEntry, GGUF_CATALOG, MODEL_CATALOG } from '../../../src/catalog';
import { WEBLLM_PREBUILT_FACTS } from '../../../src/catalog/webllm-prebuilts';
import { toModelInfos } from '../../../src/engine/webllm/webllm-models';

const webllm = MODEL_CATALOG.filter((m) => m.engine === 'web-llm');

describe('the web-llm part of the catalog', () => {
  it("has every prebuilt of web-llm's prebuiltAppConfig, with its vram, low-resource flag and context (regenerate after an upgrade)", () => {
    const records = prebuiltAppConfig.model_list;
    expect(webllm.map((m) => m.id)).toEqual(records.map((r) => r.model_id));
    expect(WEBLLM_PREBUILT_FACTS.map(([id, vram, low, features]) => [id, vram, low, features])).toEqual(
      records.map((r) => [
        r.model_id,
        r.vram_required_MB ?? null,
        r.low_resource_required ?? null,
        r.required_features ?? [],
      ]),
    );
    const contexts = new Map(toModelInfos(records).map((m) => [m.id, m.contextWindow]));
    for (const m of webllm) expect(m.contextWindow, m.id).toBe(contexts.get(m.id));
  });

  it('gives every chat build a family and a parameter count, and every build a quantization', () => {
    for (const m of webllm) {
      expect(m.family, m.id).not.toBe('Other');
      expect(m.quantization, m.id).toMatch(/^q\d+f(16|32)(_1)?$/);
      expect(m.parameters, m.id).toBeGreaterThan(10e6);
      expect(m.parameters, m.id).toBeLessThan(100e9);
    }
    expect(catalogEntry('SmolLM2-360M-Instruct-q4f16_1-MLC')?.parameters).toBe(360e6);
    expect(catalogEntry('stablelm-2-zephyr-1_6b-q4f16_1-MLC')?.parameters).toBe(1.6e9);
    expect(catalogEntry('gemma-4-E2B-it-q4f16_1-MLC')?.parameters).toBe(2e9);
    expect(catalogEntry('Llama-3.1-70B-Instruct-q3f16_1-MLC')?.parameters).toBe(70e9);
    expect(catalogEntry('Phi-3-mini-4k-instruct-q4f16_1-MLC')?.parameters).toBe(3.8e9);
  });

  it('groups the builds of one model under one name, the build label telling them apart', () => {
    const gemma = webllm.filter((m) => m.name === 'gemma-2-2b-it');
    expect(gemma.map((m) => m.build)).toEqual([
      'q4f16_1',
      'q4f32_1',
      'q4f16_1 · 1k context',
      'q4f32_1 · 1k context',
    ]);
    expect(gemma.every((m) => m.family === 'Gemma')).toBe(true);
    const names = new Set(webllm.map((m) => `${m.name}|${m.build}`));
    expect(names.size).toBe(webllm.length);
  });

  it('says every f16 build needs shader-f16 (web-llm declares it on only some) and no f32 build does', () => {
    const declared = new Set(
      prebuiltAppConfig.model_list
        .filter((r) => r.required_features?.includes('shader-f16'))
        .map((r) => r.model_id),
    );
    for (const m of webllm) {
      expect(m.needsShaderF16, m.id).toBe(/f16/.test(m.quantization));
      if (declared.has(m.id)) expect(m.needsShaderF16).toBe(true);
    }
    expect(catalogEntry('Llama-3.2-1B-Instruct-q4f16_1-MLC')?.needsShaderF16).toBe(true);
    expect(declared.has('Llama-3.2-1B-Instruct-q4f16_1-MLC')).toBe(false);
  });

  it('marks the embedding and vision builds', () => {
    expect(webllm.filter((m) => m.kind === 'embedding')).toHaveLength(4);
    expect(catalogEntry('Phi-3.5-vision-instruct-q4f32_1-MLC')?.kind).toBe('vision');
  });
});

describe('the curated GGUF list', () => {
  it('has Hugging Face /resolve/main/ URLs ending in the file the id names, and no invented size', () => {
    for (const g of GGUF_CATALOG) {
      expect(g.url, g.id).toMatch(
        /^https:\/\/huggingface\.co\/[\w.-]+\/[\w.-]+\/resolve\/main\/[\w.-]+\.gguf$/,
      );
      expect(g.url.endsWith(`/${g.id}.gguf`), g.id).toBe(true);
      // A size is either stated by a source (module comment) or absent, never guessed.
      expect(g.bytes === null, g.id).toBe(g.sizeSource === 'unverified');
      expect(g.license, g.id).not.toBe('');
    }
  });

  it('covers the families the issue names, and one embedding model', () => {
    const families = new Set(GGUF_CATALOG.map((g) => g.family));
    for (const f of ['Qwen2.5', 'Qwen3', 'Llama 3.2', 'SmolLM2', 'Gemma', 'Phi'])
      expect(families).toContain(f);
    expect(GGUF_CATALOG.filter((g) => g.kind === 'embedding')).toHaveLength(1);
    expect(catalogEntry('Llama-3.2-1B-Instruct-Q4_K_M')).toMatchObject({
      engine: 'wllama',
      downloadBytes: 807_694_464,
      needsShaderF16: false,
      vramRequiredMB: null,
    });
  });

  it('has ids unique across both engines', () => {
    expect(new Set(MODEL_CATALOG.map((m) => m.id)).size).toBe(MODEL_CATALOG.length);
  });
});
