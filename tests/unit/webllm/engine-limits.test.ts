/**
 * Issue 15, class 17: the web-llm engine's bounds. Requests beyond `maxQueue` waiting for the GPU
 * are refused with OpenAI's 429 (`retry-after`) before any header; a generation that stops
 * producing tokens fails after `generationStallMs`; and a model load fails on silence, measured in
 * bytes received as well as in web-llm's progress reports (which come once per weight shard, minutes
 * apart on a slow link). In Node, through the core where a request is involved.
 */
import type { ChatCompletionChunk } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { installByteMeter } from '../../../src/engine/webllm/webllm-download-meter';
import { fakeClock, onClock } from '../../helpers/fake-clock';
import { makeRig } from '../../helpers/server';
import { chunk, collect, LLAMA, rejection, request, setup } from '../../helpers/webllm-fakes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether the queue takes one more request for LLAMA ('room'), else the refusal's code. */
function room(engine: ReturnType<typeof setup>['engine']): Promise<string> {
  return engine.preflight(LLAMA).then(
    () => 'room',
    (err: { code?: string }) => err.code ?? 'refused',
  );
}

describe('the queue cap', () => {
  it('refuses a request past maxQueue with 429 rate_limit_exceeded and retry-after, before any header', async () => {
    const { engine, fake } = setup({ maxQueue: 2 });
    await engine.load(LLAMA);
    fake().endless = true;
    fake().stepMs = 20;
    const { call } = makeRig({ engine });
    const post = (stream: boolean) => call('POST', '/responses', { model: LLAMA, input: 'hi', stream });
    // One runs (it holds the GPU), two wait: the queue is full.
    const running = await post(true);
    const waiting = [post(true), post(true)];
    // Both have reached the queue (not a fixed sleep a loaded machine could outlast).
    await expect.poll(() => room(engine)).toBe('rate_limit_exceeded');
    const refused = await post(false);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await refused.json()).error).toMatchObject({
      type: 'requests',
      code: 'rate_limit_exceeded',
      param: null,
    });
    const chat = await call('POST', '/chat/completions', {
      model: LLAMA,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(chat.status).toBe(429);
    // Once the queue drains, requests are taken again.
    await running.body?.cancel();
    for (const w of await Promise.all(waiting)) await w.body?.cancel();
    fake().endless = false;
    await expect.poll(() => room(engine)).toBe('room');
    const later = await post(false);
    expect(later.status).toBe(200);
    expect((await later.json()).status).toBe('completed');
  });

  it('counts requests waiting for a model that is still loading', async () => {
    const { engine, fake } = setup({ maxQueue: 1 });
    await engine.load('Qwen3-0.6B-q4f16_1-MLC');
    let finishLoad: () => void = () => {};
    fake().reloadImpl = () => new Promise<void>((r) => (finishLoad = r));
    const first = engine.load(LLAMA);
    // The load, once it waits, fills the queue: polled, not after a fixed sleep.
    await expect.poll(() => room(engine)).toBe('rate_limit_exceeded');
    await expect(engine.preflight(LLAMA)).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    finishLoad();
    await first;
    await expect(engine.preflight(LLAMA)).resolves.toBeUndefined();
  });
});

describe('a generation that stops producing tokens', () => {
  it('fails after generationStallMs with generation_stalled, interrupts web-llm and frees the GPU', async () => {
    const { engine, fake } = setup({ generationStallMs: 150 });
    await engine.load(LLAMA);
    const f = fake();
    const create = f.chat.completions.create;
    let interrupted = () => {};
    f.chat.completions.create = async () =>
      (async function* (): AsyncGenerator<ChatCompletionChunk> {
        yield chunk({ text: 'Hel' });
        // The GPU stops producing: nothing more until web-llm is interrupted.
        await new Promise<void>((r) => (interrupted = r));
        yield chunk({ finish: 'abort' });
      })();
    const interrupt = f.interruptGenerate.bind(f);
    f.interruptGenerate = async () => {
      interrupted();
      await interrupt();
    };
    // The stall never ends by itself: the generation ends only through generationStallMs, as its
    // code says (no wall-clock margin).
    const err = await rejection(engine.generate(request(), new AbortController().signal));
    expect([err.status, err.type, err.code]).toEqual([504, 'server_error', 'generation_stalled']);
    expect(f.interrupts).toBe(1);
    // The GPU is free again: the next generation runs.
    f.chat.completions.create = create;
    const next = await collect(engine.generate(request(), new AbortController().signal));
    expect(next.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });
  });

  it('fails the response through the core with that code, and serves the next request', async () => {
    const { engine, fake } = setup({ generationStallMs: 150 });
    await engine.load(LLAMA);
    const f = fake();
    const create = f.chat.completions.create;
    let stall = true;
    f.chat.completions.create = async (req) => {
      if (!stall) return create(req);
      stall = false;
      return (async function* (): AsyncGenerator<ChatCompletionChunk> {
        yield chunk({ text: 'Hel' });
        // Silent until interrupted (a GPU that never answers again holds the gate for DRAIN_LIMIT_MS).
        while (f.interrupts === 0) await sleep(10);
        yield chunk({ finish: 'abort' });
      })();
    };
    const { client } = makeRig({ engine });
    const failed = await client.responses.stream({ model: LLAMA, input: 'hi' }).finalResponse();
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('generation_stalled');
    const next = await client.responses.create({ model: LLAMA, input: 'hi' });
    expect(next.status).toBe('completed');
    expect(next.output_text).toBe('Hello world');
  });

  it('leaves a slow but steady generation alone', async () => {
    fakeClock();
    const { engine, fake } = setup({ generationStallMs: 100 });
    await onClock(engine.load(LLAMA));
    fake().stepMs = 40;
    fake().reply = Array.from({ length: 10 }, (_, i) => ({ text: `w${i} ` }));
    const chunks = await onClock(collect(engine.generate(request(), new AbortController().signal)));
    expect(chunks.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });
  });
});

/** A fake worker scope whose `fetch` sends `total` bytes in `pieces`, one every `everyMs`, then stops or ends. */
function slowScope(opts: { pieces: number; everyMs: number; thenStall?: boolean }) {
  const send = (): Response =>
    new Response(
      new ReadableStream<Uint8Array>({
        async start(c) {
          for (let i = 0; i < opts.pieces; i++) {
            await sleep(opts.everyMs);
            c.enqueue(new Uint8Array(1024));
          }
          if (!opts.thenStall) c.close();
        },
      }),
    );
  class FakeCache {
    stored = new Map<string, ArrayBuffer>();
    async add(request: RequestInfo | URL): Promise<void> {
      const req = new Request(request);
      await this.put(req, await scope.fetch(req));
    }
    async put(request: Request, response: Response): Promise<void> {
      this.stored.set(request.url, await response.arrayBuffer());
    }
  }
  const scope = { fetch: async (_input: RequestInfo | URL) => send(), Cache: FakeCache };
  return scope;
}

describe('the model-load watchdog', () => {
  for (const via of ['fetch', 'Cache.add'] as const) {
    it(`keeps a load alive while bytes keep arriving through ${via}, with no progress report`, async () => {
      fakeClock();
      const scope = slowScope({ pieces: 12, everyMs: 50 });
      const { engine, fakes } = setup({ loadTimeoutMs: 200, byteMeter: installByteMeter(scope) });
      await onClock(engine.load(LLAMA));
      const f = fakes[0] as NonNullable<(typeof fakes)[0]>;
      // 600 ms of download with no progress report: three times the silence bound.
      f.reloadImpl = async () => {
        if (via === 'fetch') await (await scope.fetch('https://hf.co/q/params_shard_0.bin')).arrayBuffer();
        else await new scope.Cache().add('https://hf.co/q/params_shard_0.bin');
      };
      await onClock(engine.load('Qwen3-0.6B-q4f16_1-MLC'));
      expect(f.reloads.at(-1)).toBe('Qwen3-0.6B-q4f16_1-MLC');
    });
  }

  it('fails a load whose download goes silent with model_load_timeout', async () => {
    const scope = slowScope({ pieces: 2, everyMs: 30, thenStall: true });
    const { engine, fakes } = setup({ loadTimeoutMs: 200, byteMeter: installByteMeter(scope) });
    await engine.load(LLAMA);
    const f = fakes[0] as NonNullable<(typeof fakes)[0]>;
    f.reloadImpl = async () => {
      await (await scope.fetch('https://hf.co/q/params_shard_0.bin')).arrayBuffer();
    };
    // The download stalls for good: the load ends only through the silence bound, as its code and
    // words say (no wall-clock margin).
    const err = await rejection(engine.load('Qwen3-0.6B-q4f16_1-MLC'));
    expect([err.status, err.code]).toEqual([504, 'model_load_timeout']);
    expect(err.message).toMatch(/no data/);
  });

  it('counts nothing and changes nothing while no load watches', async () => {
    const scope = slowScope({ pieces: 3, everyMs: 1 });
    const meter = installByteMeter(scope);
    const res = await scope.fetch('https://example.test/x');
    expect((await res.arrayBuffer()).byteLength).toBe(3 * 1024);
    let seen = 0;
    const stop = meter.watch((n) => (seen += n));
    await (await scope.fetch('https://example.test/y')).arrayBuffer();
    stop();
    await (await scope.fetch('https://example.test/z')).arrayBuffer();
    expect(seen).toBe(3 * 1024);
  });
});
