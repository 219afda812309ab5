/**
 * WebLLMEngine's embeddings, with the fake MLCEngine: web-llm's embedding models are listed for
 * embeddings only, `embed` loads the model and calls `embeddings.create`, and each kind of model is
 * refused for the other kind of work.
 */
import { describe, expect, it } from 'vitest';
import { CompositeEngine } from '../../../src/engine/composite-engine';
import { scriptedEmbedding } from '../../../src/engine/scripted/scripted-embedding';
import { ScriptedEngine } from '../../../src/engine/scripted/scripted-engine';
import { collect, EMBED, LLAMA, rejection, request, setup } from '../../helpers/webllm-fakes';

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

  it('swaps a loaded chat model out for the embedding model, and back', async () => {
    const { engine, fake } = setup();
    await collect(engine.generate(request(), new AbortController().signal));
    await engine.embed(EMBED, ['a']);
    await collect(engine.generate(request(), new AbortController().signal));
    expect(fake().reloads).toEqual([LLAMA, EMBED, LLAMA]);
    expect(fake().unloads).toBe(2);
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
