import type { ChatCompletionTokenLogprob } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import type { EngineChunk, LoadProgress } from '../../../src/engine/types';
import { WebLLMEngine } from '../../../src/engine/webllm/webllm-engine';
import {
  collect,
  done,
  EMBED,
  LLAMA,
  PHI_V,
  QWEN3,
  rejection,
  request,
  setup,
  text,
} from '../../helpers/webllm-fakes';
import { responseFormatAccepts } from '../../helpers/xgrammar';

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
    const { engine, fakes } = setup({ gpu: async () => null });
    const t0 = Date.now();
    const err = await rejection(engine.load(LLAMA));
    expect(Date.now() - t0).toBeLessThan(1000);
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
    const { engine, fake } = setup({ loadTimeoutMs: 60 });
    await engine.load(QWEN3);
    fake().reloadImpl = async () => {
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 25));
        fake().progress?.({ progress: i / 6, timeElapsed: i, text: `step ${i}` });
      }
    };
    await engine.load(LLAMA);
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

describe('WebLLMEngine.generate', () => {
  it('streams text deltas, then done with usage', async () => {
    const { engine, fake } = setup();
    const chunks = await collect(
      engine.generate(
        request({ temperature: 0.2, topP: 0.9, maxOutputTokens: 50 }),
        new AbortController().signal,
      ),
    );
    expect(chunks).toEqual([
      { type: 'text', delta: 'Hello' },
      { type: 'text', delta: ' world' },
      {
        type: 'done',
        finishReason: 'stop',
        usage: { input_tokens: 12, output_tokens: 2, reasoning_tokens: 0 },
      },
    ]);
    expect(fake().reloads).toEqual([LLAMA]); // loaded on demand
    expect(fake().requests[0]).toMatchObject({
      model: LLAMA,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 50,
    });
    // Meta's template always opens with the dated system block, with or without a system message.
    expect(fake().requests[0]?.messages).toEqual([
      {
        role: 'system',
        content: expect.stringMatching(
          /^Cutting Knowledge Date: December 2023\nToday Date: \d\d \w{3} \d{4}\n\n$/,
        ),
      },
      { role: 'user', content: 'Hi' },
    ]);
    expect(fake().requests[0]).not.toHaveProperty('response_format');
  });

  it("maps finish_reason 'length' to 'length'", async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().finish = 'length';
    expect(done(await collect(engine.generate(request(), new AbortController().signal)))).toMatchObject({
      finishReason: 'length',
    });
  });

  it('interrupts on abort and ends within one chunk', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    Object.assign(fake(), { endless: true, stepMs: 5 });
    const ac = new AbortController();
    const got: EngineChunk[] = [];
    let afterAbort = 0;
    for await (const c of engine.generate(request(), ac.signal)) {
      if (ac.signal.aborted) afterAbort++;
      got.push(c);
      if (got.length === 3) ac.abort();
    }
    expect(afterAbort).toBeLessThanOrEqual(1);
    expect(got.some((c) => c.type === 'done')).toBe(false);
    expect(fake().interrupts).toBe(1);
    // The engine is free again for the next request.
    Object.assign(fake(), { endless: false, stepMs: 0 });
    expect(text(await collect(engine.generate(request(), new AbortController().signal)))).toBe('Hello world');
  });

  it('ends promptly on abort even while web-llm is still prefilling', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    Object.assign(fake(), { endless: true, stepMs: 200 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const t0 = Date.now();
    expect(await collect(engine.generate(request(), ac.signal))).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(150);
    expect(fake().interrupts).toBe(1);
  });

  it('does nothing for an already aborted signal', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    const ac = new AbortController();
    ac.abort();
    expect(await collect(engine.generate(request(), ac.signal))).toEqual([]);
    expect(fake().requests).toHaveLength(0);
  });

  it('translates json_schema and json_object formats to web-llm response_format', async () => {
    const { engine, fake } = setup();
    const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    await collect(
      engine.generate(
        request({ format: { type: 'json_schema', name: 'x', schema, strict: true } }),
        new AbortController().signal,
      ),
    );
    await collect(
      engine.generate(request({ format: { type: 'json_object' } }), new AbortController().signal),
    );
    // As EBNF with bounded whitespace (grammar-checks.test.ts), holding the same JSON.
    const [strict, object] = fake().requests.map((r) => r.response_format ?? {});
    expect([strict?.type, object?.type]).toEqual(['grammar', 'grammar']);
    expect(await responseFormatAccepts(strict ?? {}, '{"a": 1}')).toBe(true);
    expect(await responseFormatAccepts(strict ?? {}, '{"b": 1}')).toBe(false);
    expect(await responseFormatAccepts(object ?? {}, '{"b": [1]}')).toBe(true);
    expect(await responseFormatAccepts(object ?? {}, '[1]')).toBe(false);
  });

  it('maps a context overflow to 400 context_length_exceeded', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    const overflow = new Error('Prompt tokens exceed context window size: number of prompt tokens: 9000');
    overflow.name = 'ContextWindowSizeExceededError';
    fake().createError = overflow;
    const err = await rejection(engine.generate(request(), new AbortController().signal));
    expect([err.status, err.code, err.param]).toEqual([400, 'context_length_exceeded', 'input']);
    expect(err.message).toContain('9000');
  });

  it('maps other failures mid-stream to 500 and frees the engine', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().streamError = new Error('InternalError: failed to sample a valid token.');
    const err = await rejection(engine.generate(request(), new AbortController().signal));
    expect([err.status, err.type]).toEqual([500, 'server_error']);
    fake().streamError = null;
    expect(text(await collect(engine.generate(request(), new AbortController().signal)))).toBe('Hello world');
  });

  it('maps logprobs, asking web-llm for at least one top logprob', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    const lp = (token: string): ChatCompletionTokenLogprob => ({
      token,
      logprob: -0.5,
      bytes: [...new TextEncoder().encode(token)],
      top_logprobs: [
        { token, logprob: -0.5, bytes: null },
        { token: 'x', logprob: -2, bytes: [120] },
      ],
    });
    fake().reply = [
      { text: 'Hi', logprobs: [lp('Hi')] },
      { text: '!', logprobs: [lp('!')] },
    ];
    const chunks = await collect(engine.generate(request({ topLogprobs: 0 }), new AbortController().signal));
    expect(fake().requests[0]).toMatchObject({ logprobs: true, top_logprobs: 1 });
    expect(chunks[0]).toEqual({
      type: 'text',
      delta: 'Hi',
      logprobs: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105], top_logprobs: [] }],
    });
    const two = await collect(engine.generate(request({ topLogprobs: 20 }), new AbortController().signal));
    expect(fake().requests[1]).toMatchObject({ top_logprobs: 5 });
    const first = two[0];
    expect(first?.type === 'text' && first.logprobs?.[0]?.top_logprobs).toEqual([
      { token: 'Hi', logprob: -0.5, bytes: [] },
      { token: 'x', logprob: -2, bytes: [120] },
    ]);
  });

  it('rejects images for a model without vision, and sends them to a vision model', async () => {
    const { engine, fake } = setup();
    const image = {
      role: 'user' as const,
      content: [
        { type: 'text' as const, text: 'What is this?' },
        { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    };
    const err = await rejection(
      engine.generate(request({ messages: [image] }), new AbortController().signal),
    );
    expect(err.status).toBe(400);
    await collect(
      engine.generate(request({ model: PHI_V, messages: [image] }), new AbortController().signal),
    );
    expect(fake().requests[0]?.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
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
