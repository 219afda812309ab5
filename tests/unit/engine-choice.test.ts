/**
 * EngineChoice: one id served by web-llm where WebGPU can run its build, by wllama elsewhere, decided
 * once per model, with the request rewritten to the chosen engine's id and `/v1/models` naming it.
 */
import { describe, expect, it } from 'vitest';
import { EngineChoice } from '../../src/engine/engine-choice';
import { LazyEngine } from '../../src/engine/lazy-engine';
import type { Engine, EngineChunk, GenerateRequest, ModelInfo } from '../../src/engine/types';

function fakeEngine(id: string, name: string): Engine & { seen: string[] } {
  const seen: string[] = [];
  const info: ModelInfo = { id, owned_by: name, created: 0, contextWindow: 100, vision: false };
  return {
    seen,
    models: () => [info],
    async load(modelId) {
      seen.push(`load ${modelId}`);
    },
    async *generate(req: GenerateRequest): AsyncGenerator<EngineChunk> {
      seen.push(`generate ${req.model}`);
      yield { type: 'text', delta: name };
    },
    async countTokens(modelId) {
      seen.push(`count ${modelId}`);
      return 1;
    },
  };
}

const req = { model: 'qwen', messages: [] } as unknown as GenerateRequest;

describe('EngineChoice', () => {
  it('serves auto models with web-llm where WebGPU has shader-f16, by the web-llm id', async () => {
    const webllm = fakeEngine('Qwen3-0.6B-q4f16_1-MLC', 'web-llm');
    const wllama = fakeEngine('qwen', 'wllama');
    const asked: string[][] = [];
    const choice = new EngineChoice({
      specs: [{ id: 'qwen', webllm: 'Qwen3-0.6B-q4f16_1-MLC' }],
      webllm,
      wllama,
      hasWebGpu: async (features) => {
        asked.push(features);
        return true;
      },
    });
    expect(choice.models()[0]).toMatchObject({ id: 'qwen', engine: 'auto' });
    const out: EngineChunk[] = [];
    for await (const c of choice.generate(req, new AbortController().signal)) out.push(c);
    expect(out).toEqual([{ type: 'text', delta: 'web-llm' }]);
    expect(webllm.seen).toEqual(['generate Qwen3-0.6B-q4f16_1-MLC']);
    expect(asked).toEqual([['shader-f16']]);
    expect(choice.models()[0]).toMatchObject({ id: 'qwen', engine: 'web-llm', owned_by: 'web-llm' });
    await choice.load('qwen');
    expect(asked).toHaveLength(1);
  });

  it('falls back to wllama without WebGPU, and honours a fixed engine', async () => {
    const webllm = fakeEngine('Qwen3-0.6B-q4f32_1-MLC', 'web-llm');
    const wllama = fakeEngine('qwen', 'wllama');
    const choice = new EngineChoice({
      specs: [
        { id: 'qwen', webllm: 'Qwen3-0.6B-q4f32_1-MLC' },
        { id: 'fixed', webllm: 'Qwen3-0.6B-q4f32_1-MLC', engine: 'web-llm' },
      ],
      webllm,
      wllama: {
        ...wllama,
        models: () => [...wllama.models(), { ...wllama.models()[0], id: 'fixed' } as ModelInfo],
      },
      hasWebGpu: async () => false,
    });
    expect(await choice.countTokens('qwen', [])).toBe(1);
    expect(wllama.seen).toEqual(['count qwen']);
    expect(await choice.engineFor('qwen')).toBe('wllama');
    expect(await choice.engineFor('fixed')).toBe('web-llm');
    await expect(choice.load('nope')).rejects.toMatchObject({ code: 'model_not_found' });
  });
});

describe('preflight through the wrappers', () => {
  // web-llm's preflight compiles the request's schemas before any header; a wrapper that drops the
  // request lets an uncompilable schema reach a model download instead of a 400.
  function preflightRecorder(id: string): Engine & { preflights: [string, string | undefined][] } {
    const engine = Object.assign(fakeEngine(id, 'rec'), { preflights: [] as [string, string | undefined][] });
    engine.preflight = async (modelId, request) => {
      engine.preflights.push([modelId, request?.model]);
    };
    return engine;
  }

  it('EngineChoice hands the request on, under the chosen engine’s id', async () => {
    const webllm = preflightRecorder('Qwen3-0.6B-q4f16_1-MLC');
    const choice = new EngineChoice({
      specs: [{ id: 'qwen', webllm: 'Qwen3-0.6B-q4f16_1-MLC' }],
      webllm,
      wllama: fakeEngine('qwen', 'wllama'),
      hasWebGpu: async () => true,
    });
    await choice.preflight('qwen', req);
    expect(webllm.preflights).toEqual([['Qwen3-0.6B-q4f16_1-MLC', 'Qwen3-0.6B-q4f16_1-MLC']]);
  });

  it('LazyEngine hands the request on', async () => {
    const inner = preflightRecorder('qwen');
    const lazy = new LazyEngine({ name: 'l', listing: () => inner.models(), create: async () => inner });
    await lazy.preflight('qwen', req);
    expect(inner.preflights).toEqual([['qwen', 'qwen']]);
  });
});
