/**
 * WebLLMEngine over a fake web-llm: the models it lists, how it loads them (progress, WebGPU and
 * feature checks, failures, timeouts, shared and successive loads), and how it counts tokens.
 */
import { describe, expect, it } from 'vitest';
import type { LoadProgress } from '../../../src/engine/types';
import { WebLLMEngine } from '../../../src/engine/webllm/webllm-engine';
import { fakeClock, onClock } from '../../helpers/fake-clock';
import { EMBED, LLAMA, PHI_V, QWEN3, rejection, setup } from '../../helpers/webllm-fakes';

describe('WebLLMEngine.models', () => {
  it('lists chat models from the app config with context window and vision', () => {
    const { engine } = setup({
      models: [{ model: 'https://my.cdn/w', model_id: 'Mine-MLC', model_lib: 'https://my.cdn/w.wasm' }],
    });
    const models = engine.models();
    expect(models.map((m) => m.id)).toEqual([LLAMA, QWEN3, PHI_V, EMBED, 'Mine-MLC']);
    expect(models[0]).toMatchObject({ owned_by: 'mlc-ai', contextWindow: 8192, vision: false });
    expect(models[1]?.contextWindow).toBe(4096);
    expect(models[2]?.vision).toBe(true);
  });

  it('lists web-llm prebuilt models after init() when no app config is given', async () => {
    const engine = new WebLLMEngine({ gpu: async () => ({}) });
    await engine.init();
    expect(engine.models().some((m) => m.id === QWEN3)).toBe(true);
  });
});

describe('WebLLMEngine.load', () => {
  it('reloads the model and forwards progress as {progress, text, receivedBytes}', async () => {
    const { engine, fake, configs } = setup({ cacheBackend: 'indexeddb' });
    const seen: LoadProgress[] = [];
    await engine.load(LLAMA, (p) => seen.push(p));
    expect(fake().reloads).toEqual([LLAMA]);
    expect(seen).toEqual([
      { progress: 0.5, text: 'Fetching param cache[1/2]', receivedBytes: 0 },
      { progress: 1, text: 'Finish loading on WebGPU', receivedBytes: 0 },
    ]);
    expect(configs[0]?.appConfig?.cacheBackend).toBe('indexeddb');
    expect(configs[0]?.appConfig?.model_list.map((r) => r.model_id)).toContain(QWEN3);
    await engine.load(LLAMA);
    expect(fake().reloads).toEqual([LLAMA]);
  });

  it('fails fast with 503 when there is no WebGPU adapter', async () => {
    // On a clock that never moves: an answer that waited on any timer (a retry, a load deadline)
    // would never come, and the test would time out.
    fakeClock();
    const { engine, fakes } = setup({ gpu: async () => null });
    const err = await rejection(engine.load(LLAMA));
    expect([err.status, err.code]).toEqual([503, 'webgpu_unavailable']);
    expect(fakes.flatMap((f) => f.reloads)).toEqual([]);
  });

  it('treats a navigator without gpu (Node) as no WebGPU', async () => {
    const { engine } = setup({ gpu: undefined });
    expect((await rejection(engine.load(LLAMA))).status).toBe(503);
  });

  it('answers 400 model_not_found for an unknown model, as every route that names a model does', async () => {
    const { engine } = setup();
    const err = await rejection(engine.load('gpt-9'));
    expect([err.status, err.code, err.param, err.message]).toEqual([
      400,
      'model_not_found',
      'model',
      "The requested model 'gpt-9' does not exist.",
    ]);
  });

  it('preflight: a missing shader-f16 is a 503 naming the feature before any download', async () => {
    const noF16 = { requestAdapter: async () => ({ features: new Set<string>() }) };
    const { engine, fakes } = setup({ gpu: noF16 });
    const err = await rejection(engine.preflight(QWEN3));
    expect(err).toMatchObject({ status: 503, code: 'webgpu_unavailable' });
    expect(err.message).toContain("'shader-f16'");
    expect(err.message).toContain('Qwen3-0.6B-q4f32_1-MLC');
    expect(fakes).toHaveLength(0); // nothing was started, nothing downloaded
    await expect(rejection(engine.load(QWEN3))).resolves.toMatchObject({ code: 'webgpu_unavailable' });
    const f16 = { requestAdapter: async () => ({ features: new Set(['shader-f16']) }) };
    await expect(setup({ gpu: f16 }).engine.preflight(QWEN3)).resolves.toBeUndefined();
    await expect(rejection(setup({ gpu: f16 }).engine.preflight('gpt-9'))).resolves.toMatchObject({
      status: 400,
    });
  });

  it('maps a failed download to 503 naming the model, and can retry', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3).catch(() => {});
    fake().reloadImpl = async () => {
      throw new TypeError('Failed to fetch');
    };
    const err = await rejection(engine.load(LLAMA));
    expect([err.status, err.code]).toEqual([503, 'model_download_failed']);
    expect(err.message).toContain(LLAMA);
    fake().reloadImpl = async () => {};
    await engine.load(LLAMA);
    expect(fake().reloads).toEqual([QWEN3, LLAMA, LLAMA]);
  });

  it('times out a load that makes no progress instead of hanging', async () => {
    const { engine, fake } = setup({ loadTimeoutMs: 40 });
    await engine.init();
    const f = await engine.load(LLAMA).then(fake); // creates the fake
    f.reloadImpl = () => new Promise(() => {});
    const err = await rejection(engine.load(QWEN3));
    expect([err.status, err.code]).toEqual([504, 'model_load_timeout']);
    expect(f.unloads).toBeGreaterThanOrEqual(2); // the previous model, then the stalled load
  });

  it('keeps a slow load alive while progress keeps coming', async () => {
    fakeClock(); // a report every 25 ms of it, the silence bound 60: no loaded machine stretches one
    const { engine, fake } = setup({ loadTimeoutMs: 60 });
    await onClock(engine.load(QWEN3));
    fake().reloadImpl = async () => {
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 25));
        fake().progress?.({ progress: i / 6, timeElapsed: i, text: `step ${i}` });
      }
    };
    await onClock(engine.load(LLAMA));
    expect(fake().reloads).toEqual([QWEN3, LLAMA]);
  });

  it('shares one load among concurrent callers of the same model', async () => {
    const { engine, fake } = setup();
    const a: LoadProgress[] = [];
    const b: LoadProgress[] = [];
    await Promise.all([engine.load(LLAMA, (p) => a.push(p)), engine.load(LLAMA, (p) => b.push(p))]);
    expect(fake().reloads).toEqual([LLAMA]);
    expect(a).toHaveLength(2);
    expect(b).toHaveLength(2);
  });

  it('unloads the previous model before loading another', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    await engine.load(QWEN3);
    expect(fake().reloads).toEqual([LLAMA, QWEN3]);
    expect(fake().unloads).toBe(1);
  });
});

describe('WebLLMEngine.countTokens', () => {
  it("uses the loaded model's tokenizer, else an estimate", async () => {
    const { engine, fake } = setup();
    const messages = [{ role: 'user' as const, content: 'one two three four' }];
    const estimate = await engine.countTokens(QWEN3, messages);
    expect(estimate).toBe(Math.ceil(18 / 4) + 4);
    await engine.load(QWEN3);
    const encode = (s: string) => s.split(' ');
    Object.assign(fake(), { loadedModelIdToPipeline: new Map([[QWEN3, { tokenizer: { encode } }]]) });
    expect(await engine.countTokens(QWEN3, messages)).toBe(4 + 4);
    const withTools = await engine.countTokens(QWEN3, messages, [
      { name: 'f', description: null, parameters: { type: 'object' }, strict: null },
    ]);
    expect(withTools).toBeGreaterThan(8);
  });
});
