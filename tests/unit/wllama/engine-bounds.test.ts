/**
 * The llama.cpp engine's bounds over a fake `Wllama` (tests/helpers/wllama-fakes.ts): the wait
 * queue's cap (429 with retry-after, as on web-llm), embeddings that stop between inputs once
 * aborted, and a first-token bound that grows with the prompt but stops at a cap. After each, the
 * engine serves the next request.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { DEFAULT_MAX_QUEUE } from '../../../src/engine/turns';
import type { GenerateRequest } from '../../../src/engine/types';
import type { WllamaEngine } from '../../../src/engine/wllama';
import { ChunkQueue } from '../../../src/engine/wllama/chunk-queue';
import { DEFAULT_MAX_FIRST_TOKEN_MS, firstTokenBoundMs } from '../../../src/engine/wllama/limits';
import type { WllamaEngineOptions } from '../../../src/engine/wllama/wllama-options';
import { generateRequest } from '../../helpers/generate-request';
import { tinyGguf } from '../../helpers/tiny-gguf';
import { fakeWllamaEngine, runEngine } from '../../helpers/wllama-engine-rig';
import type { FakeWllama } from '../../helpers/wllama-fakes';

const engineWith = (opts: WllamaEngineOptions = {}) =>
  fakeWllamaEngine({
    models: [
      { id: 'm', files: [tinyGguf()] },
      { id: 'e', files: [tinyGguf()], kind: 'embeddings' },
    ],
    ...opts,
  });

const req = (over: Partial<GenerateRequest> = {}) =>
  generateRequest({ model: 'm', maxOutputTokens: 2, temperature: 0, ...over });

/**
 * The next request is answered, in full: the engine is not held (what held it never ends by itself,
 * so a held engine hangs this until the test's timeout; no wall-clock margin).
 */
async function servesNext(engine: WllamaEngine): Promise<void> {
  const chunks = await runEngine(engine, req());
  expect(chunks.at(-1)).toMatchObject({ type: 'done', usage: { output_tokens: 2 } });
}

describe('the wait queue', () => {
  it('is capped at 16 by default, as on web-llm', () => {
    expect(DEFAULT_MAX_QUEUE).toBe(16);
  });

  it('answers 429 rate_limit_exceeded with retry-after past maxQueue, and serves again once it drains', async () => {
    const { engine, fakes } = engineWith({ maxQueue: 2 });
    await engine.load('m');
    (fakes[0] as FakeWllama).tokenMs = 30;
    const busy = new AbortController();
    const running = runEngine(engine, req({ maxOutputTokens: 1000 }), busy.signal);
    await new Promise((r) => setTimeout(r, 10));
    const queued = [runEngine(engine, req()), runEngine(engine, req())];
    await new Promise((r) => setTimeout(r, 10));
    const refused = await runEngine(engine, req()).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ status: 429, type: 'requests', code: 'rate_limit_exceeded' });
    expect((refused as Error).message).toMatch(
      /queued requests: Limit 2, Used 2, Requested 1\..*try again in \d+s/,
    );
    expect(
      Number((refused as { headers: Record<string, string> }).headers['retry-after']),
    ).toBeGreaterThanOrEqual(1);
    await expect(engine.embed('e', ['x'])).rejects.toMatchObject({ status: 429 });
    busy.abort();
    await running;
    for (const q of await Promise.all(queued)) expect(q.at(-1)).toMatchObject({ type: 'done' });
    await servesNext(engine);
  });

  it('counts maxQueue below 1 as 1', async () => {
    const { engine } = engineWith({ maxQueue: 0 });
    await servesNext(engine);
  });
});

describe('embeddings honour abort', () => {
  it('stop between inputs once aborted, answer 499, and free the engine', async () => {
    const { engine, fakes } = engineWith();
    await engine.load('e');
    const fake = fakes[0] as FakeWllama;
    let calls = 0;
    const ac = new AbortController();
    fake.createEmbedding = async (o: { input: string | string[] }) => {
      calls++;
      // Aborted while the third input is in hand: it stops after that one (counted, not timed).
      if (calls === 3) ac.abort();
      await new Promise((r) => setTimeout(r, 20));
      return { data: [{ index: 0, embedding: [String(o.input).length] }], usage: { prompt_tokens: 1 } };
    };
    const inputs = Array.from({ length: 1000 }, (_, i) => `input ${i}`);
    const pending = engine.embed('e', inputs, undefined, ac.signal);
    await expect(pending).rejects.toMatchObject({ status: 499, code: 'client_closed_request' });
    expect(calls).toBe(3);
    await servesNext(engine);
  });

  it('refuse at once when aborted before their turn', async () => {
    const { engine } = engineWith();
    const ac = new AbortController();
    ac.abort();
    await expect(engine.embed('e', ['x'], undefined, ac.signal)).rejects.toMatchObject({ status: 499 });
    await servesNext(engine);
  });
});

describe('the first-token bound', () => {
  it('allows one stall bound per 512-token prompt batch, at least one, and at most the cap', () => {
    expect(firstTokenBoundMs(100, 60_000, DEFAULT_MAX_FIRST_TOKEN_MS)).toBe(60_000);
    expect(firstTokenBoundMs(2_048, 60_000, DEFAULT_MAX_FIRST_TOKEN_MS)).toBe(240_000);
    // A 128k-token prompt: 256 batches, 4 h 16 min uncapped; 5 min with the cap.
    expect(firstTokenBoundMs(131_072, 60_000, DEFAULT_MAX_FIRST_TOKEN_MS)).toBe(300_000);
    // Never below the stall bound, whatever the cap.
    expect(firstTokenBoundMs(131_072, 60_000, 1_000)).toBe(60_000);
  });

  it('fails a hung first token of a long prompt within the cap (504), then serves again', async () => {
    // 200 batches of prompt at 100 ms each would allow 20 s; the cap is 400 ms.
    const { engine, fakes } = engineWith({ stallTimeoutMs: 100, maxFirstTokenMs: 400 });
    await engine.load('m');
    (fakes[0] as FakeWllama).mode = 'hang';
    // The waits the engine put on llama.cpp's chunks: the first is the capped bound (not 200
    // stall bounds), and it is what ended the request (the hang never does).
    const waits: number[] = [];
    const next = ChunkQueue.prototype.next;
    const spy = vi.spyOn(ChunkQueue.prototype, 'next').mockImplementation(function (
      this: ChunkQueue<unknown>,
      ms: number,
      signal?: AbortSignal,
    ) {
      waits.push(ms);
      return next.call(this, ms, signal);
    });
    onTestFinished(() => spy.mockRestore());
    const long = 'word '.repeat(20_000);
    await expect(
      runEngine(engine, req({ messages: [{ role: 'user', content: long }] })),
    ).rejects.toMatchObject({
      status: 504,
      code: 'model_unresponsive',
    });
    expect(waits).toEqual([400]);
    await servesNext(engine);
  });
});
