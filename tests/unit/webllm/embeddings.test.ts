/**
 * WebLLMEngine's embeddings, with the fake MLCEngine: web-llm's embedding models are listed for
 * embeddings only, `embed` loads the model and calls `embeddings.create`, and each kind of model is
 * refused for the other kind of work.
 */
import { describe, expect, it } from 'vitest';
import { CompositeEngine } from '../../../src/engine/composite-engine';
import { scriptedEmbedding } from '../../../src/engine/scripted/scripted-embedding';
import { ScriptedEngine } from '../../../src/engine/scripted/scripted-engine';
import { convConfigFor } from '../../../src/engine/webllm/webllm-conv-templates';
import {
  appConfig,
  collect,
  EMBED,
  LLAMA,
  QWEN3,
  rejection,
  request,
  setup,
} from '../../helpers/webllm-fakes';

describe('WebLLMEngine embedding models', () => {
  it('lists them with the embeddings capability and the context their library was built for', () => {
    const { engine } = setup();
    const models = engine.models();
    expect(models.find((m) => m.id === EMBED)).toMatchObject({
      capabilities: ['embeddings'],
      contextWindow: 512,
    });
    expect(models.find((m) => m.id === LLAMA)?.capabilities).toEqual(['chat']);
  });

  it('loads the model and embeds through embeddings.create, in input order', async () => {
    const { engine, fake } = setup();
    const result = await engine.embed(EMBED, ['hello there', 'x']);
    expect(fake().reloads).toEqual([EMBED]);
    expect(fake().embedRequests).toEqual([{ input: ['hello there', 'x'], model: EMBED }]);
    expect(result).toEqual({
      vectors: [
        [11, 0, 1, 0],
        [1, 1, 1, 0],
      ],
      tokens: 3,
    });
    await engine.embed(EMBED, ['again']);
    expect(fake().reloads).toEqual([EMBED]);
  });

  it('loads the embedding model beside the chat model, so neither evicts the other', async () => {
    const { engine, fake } = setup();
    await collect(engine.generate(request({ model: QWEN3 }), new AbortController().signal));
    await engine.embed(EMBED, ['a']);
    await collect(engine.generate(request({ model: QWEN3 }), new AbortController().signal));
    await engine.embed(EMBED, ['b']);
    expect(fake().reloads).toEqual([QWEN3, [QWEN3, EMBED]]);
    // One ChatOptions per model, the chat model's conversation-template corrections kept.
    expect(fake().reloadOptions[1]).toEqual([{ conv_config: convConfigFor(QWEN3) }, {}]);
    expect(fake().requests.map((r) => r.model)).toEqual([QWEN3, QWEN3]);
  });

  it('keeps the embedding model when another chat model loads, and a chat model joins it', async () => {
    const { engine, fake } = setup();
    await engine.embed(EMBED, ['a']);
    await collect(engine.generate(request(), new AbortController().signal));
    await collect(engine.generate(request({ model: QWEN3 }), new AbortController().signal));
    await engine.embed(EMBED, ['b']);
    expect(fake().reloads).toEqual([EMBED, [LLAMA, EMBED], [QWEN3, EMBED]]);
  });

  it('swaps one for the other where the pair is over the memory budget', async () => {
    const list = appConfig.model_list.map((r) =>
      r.model_id === LLAMA
        ? { ...r, vram_required_MB: 1200 }
        : r.model_id === EMBED
          ? { ...r, vram_required_MB: 300 }
          : r,
    );
    const { engine, fake } = setup({ appConfig: { model_list: list }, vramBudgetMB: 1400 });
    await collect(engine.generate(request(), new AbortController().signal));
    await engine.embed(EMBED, ['a']);
    await collect(engine.generate(request(), new AbortController().signal));
    expect(fake().reloads).toEqual([LLAMA, EMBED, LLAMA]);
  });

  it('loads the model alone when the GPU refuses the pair, and does not try that pair again', async () => {
    const { engine, fake, fakes } = setup();
    await collect(engine.generate(request(), new AbortController().signal));
    fake().reloadImpl = async (id) => {
      if (fake().loadedModelIdToPipeline.size > 0 && id === EMBED)
        throw Object.assign(new Error('Device was lost: out of memory'), { name: 'DeviceLostError' });
    };
    const result = await engine.embed(EMBED, ['a']);
    expect(result.vectors).toHaveLength(1);
    // The device loss took the first MLCEngine; a fresh one loaded the embedding model alone.
    expect(fake().reloads).toEqual([LLAMA, [LLAMA, EMBED]]);
    expect(fakes[1]?.reloads).toEqual([EMBED]);
    await collect(engine.generate(request(), new AbortController().signal));
    expect(fakes[1]?.reloads).toEqual([EMBED, LLAMA]);
  });

  it('refuses dimensions, which web-llm cannot shorten', async () => {
    const { engine, fake } = setup();
    const err = await rejection(engine.embed(EMBED, ['a'], 8));
    expect([err.status, err.param, err.code]).toEqual([400, 'dimensions', 'unsupported_value']);
    expect(fake).toThrow('engine not created');
  });

  it('refuses embeddings from a chat model and chat from an embedding model', async () => {
    const { engine } = setup();
    const noEmbed = await rejection(engine.embed(LLAMA, ['a']));
    expect([noEmbed.status, noEmbed.param, noEmbed.code]).toEqual([400, 'model', 'unsupported_model']);
    const noChat = await rejection(engine.generate(request({ model: EMBED }), new AbortController().signal));
    expect(noChat.message).toMatch(/is an embedding model/);
  });

  it('maps an input past the model’s context to 400 context_length_exceeded', async () => {
    const { engine, fake } = setup();
    await engine.load(EMBED);
    fake().embedError = Object.assign(new Error('Embedding input exceeds the context window.'), {
      name: 'EmbeddingExceedContextWindowSizeError',
    });
    const err = await rejection(engine.embed(EMBED, ['long']));
    expect([err.status, err.code]).toEqual([400, 'context_length_exceeded']);
  });
});

describe('CompositeEngine.embed', () => {
  it('routes by model id to the member that lists it', async () => {
    const { engine: webllm } = setup();
    const engine = new CompositeEngine([new ScriptedEngine(), webllm]);
    expect((await engine.embed('scripted', ['hi'])).vectors).toEqual([scriptedEmbedding('hi')]);
    expect((await engine.embed(EMBED, ['hi'])).vectors).toEqual([[2, 0, 1, 0]]);
  });
});
