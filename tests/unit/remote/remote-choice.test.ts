/**
 * "Local where possible, else remote": a remote model that names its web-llm build is served by
 * web-llm where WebGPU can run it and by the remote server elsewhere, decided by EngineChoice.
 */
import { describe, expect, it } from 'vitest';
import { CompositeEngine } from '../../../src/engine/composite-engine';
import { EngineChoice } from '../../../src/engine/engine-choice';
import { RemoteEngine } from '../../../src/engine/remote';
import type { Engine, EngineChunk, GenerateRequest, ModelInfo } from '../../../src/engine/types';
import { fakeChatServer } from '../../helpers/fake-chat-server';
import { generateRequest } from '../../helpers/generate-request';

function fakeWebllm(id: string): Engine & { seen: string[] } {
  const seen: string[] = [];
  const info: ModelInfo = { id, owned_by: 'mlc', created: 0, contextWindow: 100, vision: false };
  return {
    seen,
    models: () => [info],
    async load() {},
    async *generate(req: GenerateRequest): AsyncGenerator<EngineChunk> {
      seen.push(req.model);
      yield { type: 'text', delta: 'local' };
    },
    async countTokens() {
      return 1;
    },
  };
}

function rig(hasWebGpu: boolean) {
  const fake = fakeChatServer({
    chunks: [{ choices: [{ index: 0, delta: { content: 'remote' }, finish_reason: 'stop' }] }],
  });
  const remote = new RemoteEngine({
    servers: [
      {
        baseURL: fake.baseURL,
        models: [{ id: 'qwen', model: 'Qwen/Qwen3-8B', webllm: 'Qwen3-8B-q4f32_1-MLC' }],
      },
    ],
    fetch: fake.fetch,
  });
  const webllm = fakeWebllm('Qwen3-8B-q4f32_1-MLC');
  const wllama = fakeWebllm('unused');
  const choice = new EngineChoice({
    specs: [{ id: 'qwen', webllm: 'Qwen3-8B-q4f32_1-MLC', fallback: 'remote' }],
    webllm,
    wllama,
    remote,
    hasWebGpu: async () => hasWebGpu,
  });
  return { fake, webllm, engine: new CompositeEngine([choice, webllm, wllama, remote]) };
}

async function text(engine: Engine): Promise<string> {
  let out = '';
  for await (const c of engine.generate(generateRequest({ model: 'qwen' }), new AbortController().signal))
    if (c.type === 'text') out += c.delta;
  return out;
}

describe('local where possible, else remote', () => {
  it('runs on web-llm where WebGPU can, and never calls the server', async () => {
    const { fake, webllm, engine } = rig(true);
    expect(await text(engine)).toBe('local');
    expect(webllm.seen).toEqual(['Qwen3-8B-q4f32_1-MLC']);
    expect(fake.calls).toHaveLength(0);
    expect(engine.models().find((m) => m.id === 'qwen')?.engine).toBe('web-llm');
  });

  it('runs on the remote server, by its own model id, where WebGPU cannot', async () => {
    const { fake, webllm, engine } = rig(false);
    expect(engine.models().find((m) => m.id === 'qwen')?.engine).toBe('auto');
    expect(await text(engine)).toBe('remote');
    expect(webllm.seen).toEqual([]);
    expect(fake.calls[0]?.body?.model).toBe('Qwen/Qwen3-8B');
    expect(engine.models().find((m) => m.id === 'qwen')?.engine).toBe('remote');
  });
});
