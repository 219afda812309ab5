import { describe, expect, it } from 'vitest';
import { engineWorkerName, workerOptions } from '../../../src/worker/worker-options';

describe('engine worker options carried in its name', () => {
  it('round-trips store limits', () => {
    const name = engineWorkerName({ store: { ttlMs: 60_000, maxResponses: 50 } });
    expect(workerOptions(name)).toEqual({
      store: { ttlMs: 60_000, maxResponses: 50, maxConversations: undefined },
      webllm: {},
      server: {},
    });
  });
  it('keeps the plain name without options, and falls back to defaults on anything malformed', () => {
    expect(engineWorkerName({})).toBe('intab-engine');
    expect(engineWorkerName({ store: {}, webllm: {} })).toBe('intab-engine');
    expect(workerOptions('intab-engine')).toEqual({ store: {}, webllm: {}, server: {} });
    expect(workerOptions('intab-engine {not json')).toEqual({ store: {}, webllm: {}, server: {} });
    expect(workerOptions('intab-engine {"store":{"ttlMs":-5,"maxResponses":"9"}}').store).toEqual({
      ttlMs: undefined,
      maxResponses: undefined,
      maxConversations: undefined,
    });
  });

  it('round-trips self-hosted web-llm models and the cache backend', () => {
    const model = {
      model: 'https://models.example/my-llm/',
      model_id: 'my-llm',
      model_lib: 'https://models.example/my-llm.wasm',
    };
    const name = engineWorkerName({
      webllm: { models: [model], cacheBackend: 'indexeddb', loadTimeoutMs: 5000 },
    });
    expect(workerOptions(name).webllm).toEqual({
      models: [model],
      cacheBackend: 'indexeddb',
      loadTimeoutMs: 5000,
    });
    expect(
      workerOptions('intab-engine {"webllm":{"models":[{"nope":1}],"loadTimeoutMs":-1}}').webllm,
    ).toEqual({ models: [] });
  });

  it('round-trips the engine bounds and the server options, dropping bad ones', () => {
    const name = engineWorkerName({
      webllm: { maxQueue: 4, generationStallMs: 30_000, loadTimeoutMs: 0 },
      server: { streamIdleMs: 1_500 },
    });
    expect(workerOptions(name)).toMatchObject({
      webllm: { maxQueue: 4, generationStallMs: 30_000, loadTimeoutMs: 0 },
      server: { streamIdleMs: 1_500 },
    });
    const bad = 'intab-engine {"webllm":{"maxQueue":0,"generationStallMs":"x"},"server":{"streamIdleMs":-1}}';
    expect(workerOptions(bad)).toEqual({ store: {}, webllm: {}, server: {} });
  });

  it('round-trips the file_search embedding model, dropping a bad one', () => {
    const name = engineWorkerName({
      fileSearch: { embeddingModel: 'snowflake-arctic-embed-s-q0f32-MLC-b32' },
    });
    expect(workerOptions(name).fileSearch).toEqual({
      embeddingModel: 'snowflake-arctic-embed-s-q0f32-MLC-b32',
    });
    expect(workerOptions('intab-engine {"fileSearch":{"embeddingModel":7}}').fileSearch).toBeUndefined();
  });

  it('round-trips the code_interpreter wall time, dropping a bad one', () => {
    expect(
      workerOptions(engineWorkerName({ codeInterpreter: { timeoutMs: 5_000 } })).codeInterpreter,
    ).toEqual({
      timeoutMs: 5_000,
    });
    for (const bad of ['-1', '0', '"5000"', 'null'])
      expect(
        workerOptions(`intab-engine {"codeInterpreter":{"timeoutMs":${bad}}}`).codeInterpreter,
      ).toBeUndefined();
  });

  it('carries wllama logPrompts only when it is true', () => {
    expect(workerOptions(engineWorkerName({ wllama: { logPrompts: true } })).wllama).toEqual({
      logPrompts: true,
    });
    for (const bad of ['false', '1', '"yes"'])
      expect(workerOptions(`intab-engine {"wllama":{"logPrompts":${bad}}}`).wllama).toEqual({});
  });
});
