/**
 * WebLLMEngine.generate over a fake web-llm: streamed deltas and usage, finish reasons, abort,
 * response formats, errors mapped to OpenAI statuses, logprobs and images.
 */
import type { ChatCompletionTokenLogprob } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import type { EngineChunk } from '../../../src/engine/types';
import { fakeClock, onClock } from '../../helpers/fake-clock';
import { collect, done, LLAMA, PHI_V, rejection, request, setup, text } from '../../helpers/webllm-fakes';
import { responseFormatAccepts } from '../../helpers/xgrammar';

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
    // On the fake clock: the abort comes at 20 ms, the first step would end at 200, and no loaded
    // machine can reorder them; ended by the abort, nothing was yielded and no step ran to its end.
    fakeClock();
    const { engine, fake } = setup();
    await onClock(engine.load(LLAMA));
    Object.assign(fake(), { endless: true, stepMs: 200 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    expect(await onClock(collect(engine.generate(request(), ac.signal)), 1)).toEqual([]);
    expect(fake().stepsDone).toBe(0);
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
