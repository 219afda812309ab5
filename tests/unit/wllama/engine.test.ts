/**
 * WllamaEngine's own logic over a fake `Wllama` (tests/helpers/wllama-fakes.ts): streaming and usage,
 * abort within a token, crash and hang recovery with bounded waits, exact counts by a one-token run,
 * load progress, eviction, embeddings. Real llama.cpp runs the same paths in tests/e2e/wllama-*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { EngineChunk, GenerateRequest } from '../../../src/engine/types';
import type { ModelFetcher, WllamaModelSpec } from '../../../src/engine/wllama/wllama-options';
import { generateRequest } from '../../helpers/generate-request';
import { type GgufEntry, tinyGguf } from '../../helpers/tiny-gguf';
import { fakeWllamaEngine, runEngine } from '../../helpers/wllama-engine-rig';
import type { FakeWllama } from '../../helpers/wllama-fakes';

/** The engine's tiny GGUF, with a byte-level piece (`Ã`) in its three-token vocabulary. */
const vocabGguf = (extra: GgufEntry[] = []) => tinyGguf({ tokens: ['a', 'Ã', 'Ġb'], extra });

function engineWith(
  opts: {
    specs?: WllamaModelSpec[];
    stallTimeoutMs?: number;
    maxLoaded?: number;
    fetcher?: ModelFetcher;
  } = {},
) {
  return fakeWllamaEngine({
    tokens: ['Hel', 'lo', ' there'],
    models: opts.specs ?? [{ id: 'm', files: [vocabGguf()] }],
    stallTimeoutMs: opts.stallTimeoutMs ?? 2_000,
    maxLoaded: opts.maxLoaded,
    fetchModel: opts.fetcher,
  });
}

const req = (over: Partial<GenerateRequest> = {}) =>
  generateRequest({ model: 'm', maxOutputTokens: 3, temperature: 0, ...over });
describe('WllamaEngine', () => {
  it('streams text deltas and ends with usage from llama.cpp, cached tokens included', async () => {
    const { engine, fakes } = engineWith();
    await engine.load('m');
    (fakes[0] as FakeWllama).cached = 4;
    const chunks = await runEngine(engine, req());
    expect(
      chunks
        .filter((c) => c.type === 'text')
        .map((c) => (c as { delta: string }).delta)
        .join(''),
    ).toBe('Hello there');
    expect(chunks.at(-1)).toEqual({
      type: 'done',
      finishReason: 'length',
      usage: { input_tokens: 12, output_tokens: 3, reasoning_tokens: 0, cached_tokens: 4 },
    });
    const sent = fakes[0]?.calls[0]?.params as Record<string, unknown>;
    expect(sent.messages).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(sent).toMatchObject({ max_tokens: 3, temperature: 0, stream: true });
  });

  it('lists models with their engine, and where a loaded one runs', async () => {
    const { engine } = engineWith();
    expect(engine.models()[0]).toMatchObject({
      id: 'm',
      engine: 'wllama',
      cached: true,
      capabilities: ['chat'],
    });
    expect(engine.models()[0]?.device).toBeUndefined();
    await engine.load('m');
    expect(engine.models()[0]).toMatchObject({ device: 'cpu', contextWindow: 4096 });
  });

  it('stops within a token of an abort and only then lets the next job in', async () => {
    const { engine, fakes } = engineWith();
    await engine.load('m');
    const fake = fakes[0] as FakeWllama;
    fake.tokenMs = 20;
    const ac = new AbortController();
    const chunks: EngineChunk[] = [];
    for await (const c of engine.generate(req({ maxOutputTokens: 500 }), ac.signal)) {
      chunks.push(c);
      if (chunks.length === 3) ac.abort();
    }
    expect(chunks.length).toBe(3);
    const next = await runEngine(engine, req());
    expect(next.at(-1)?.type).toBe('done');
    expect(fake.calls[0]?.afterAbort).toBeLessThanOrEqual(1);
  });

  it("fails a crash with llama.cpp's words, and a new instance serves the next request", async () => {
    const { engine, fakes } = engineWith();
    await engine.load('m');
    (fakes[0] as FakeWllama).mode = 'crash';
    await expect(runEngine(engine, req())).rejects.toMatchObject({
      status: 500,
      code: 'model_crashed',
      message: expect.stringContaining('GGML_ASSERT(n_tokens > 0) failed'),
    });
    expect(fakes[0]?.exited).toBe(true);
    const again = await runEngine(engine, req());
    expect(again.at(-1)?.type).toBe('done');
    expect(fakes).toHaveLength(2);
  });

  it('fails a hung instance within the stall bound, discards it, and recovers', async () => {
    const { engine, fakes } = engineWith({ stallTimeoutMs: 300 });
    await engine.load('m');
    (fakes[0] as FakeWllama).mode = 'hang';
    // The hang never ends by itself: only the stall bound ends the request, as its code says.
    await expect(runEngine(engine, req())).rejects.toMatchObject({ status: 504, code: 'model_unresponsive' });
    expect(fakes[0]?.exited).toBe(true);
    expect((await runEngine(engine, req())).at(-1)?.type).toBe('done');
  });

  it('counts exactly when asked once loaded (a one-token run, cached per prompt), bounds or estimates otherwise', async () => {
    const { engine, fakes } = engineWith();
    const messages = [{ role: 'user' as const, content: 'Hi there, how are you?' }];
    expect(await engine.countsExactly('m')).toBe(false);
    const estimate = await engine.countTokens('m', messages);
    expect(estimate).toBeGreaterThan(0);
    await engine.load('m');
    expect(await engine.countsExactly('m')).toBe(true);
    const fake = fakes[0] as FakeWllama;
    fake.promptTokens = 17;
    // A bound that fits the context needs no run: bytes plus markup.
    const bound = await engine.countTokens('m', messages);
    expect(bound).toBeGreaterThanOrEqual(17);
    expect(fake.calls).toHaveLength(0);
    expect(await engine.countTokens('m', messages, [], { exact: true })).toBe(17);
    expect(await engine.countTokens('m', messages, [], { exact: true })).toBe(17);
    expect(fake.calls).toHaveLength(1);
    // A bound past the context is not good enough: the run answers.
    const long = [{ role: 'user' as const, content: 'x'.repeat(5000) }];
    expect(await engine.countTokens('m', long)).toBe(17);
    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[0]?.params).toMatchObject({ max_tokens: 1, temperature: 0 });
  });

  it('reports load progress through the download, ending ready', async () => {
    const fetcher: ModelFetcher = {
      async fetch(_url, { progress }) {
        for (const loaded of [10, 50, 100]) progress({ loaded, total: 100 });
        return [vocabGguf()];
      },
      async cachedUrls() {
        return new Set();
      },
    };
    const { engine } = engineWith({ specs: [{ id: 'm', url: 'https://example.com/m.gguf' }], fetcher });
    await engine.init();
    expect(engine.models()[0]?.cached).toBe(false);
    const reports: { progress: number; text: string }[] = [];
    await engine.load('m', (p) => reports.push(p));
    expect(reports[0]?.text).toMatch(/Fetching 'm'/);
    expect(reports.map((r) => r.progress)).toEqual([...reports.map((r) => r.progress)].sort((a, b) => a - b));
    expect(reports.at(-1)).toMatchObject({ progress: 1 });
    expect(engine.models()[0]?.cached).toBe(true);
  });

  it('keeps at most maxLoaded instances, the least recently used going first', async () => {
    const gguf = vocabGguf();
    const { engine, fakes } = engineWith({
      maxLoaded: 1,
      specs: [
        { id: 'a', files: [gguf] },
        { id: 'b', files: [gguf] },
      ],
    });
    await engine.load('a');
    await engine.load('b');
    expect(fakes[0]?.exited).toBe(true);
    expect(fakes[1]?.exited).toBe(false);
  });

  it('embeds with an embedding model, one input per llama.cpp call, and refuses the wrong use', async () => {
    const { engine } = engineWith({
      specs: [
        { id: 'e', files: [vocabGguf()], kind: 'embeddings' },
        { id: 'm', files: [vocabGguf()] },
      ],
    });
    expect(await engine.embed('e', ['ab', 'abcd'])).toEqual({
      vectors: [
        [2, 1],
        [4, 1],
      ],
      tokens: 6,
    });
    await expect(engine.embed('e', ['x'], 8)).rejects.toMatchObject({ status: 400, param: 'dimensions' });
    await expect(engine.embed('m', ['x'])).rejects.toMatchObject({ status: 400, code: 'unsupported_model' });
    await expect(runEngine(engine, req({ model: 'e' }))).rejects.toMatchObject({ code: 'unsupported_model' });
  });

  it('detects an embedding GGUF by its pooling type: it loads, embeds and refuses chat', async () => {
    const { engine, fakes } = engineWith({
      specs: [{ id: 'e', files: [vocabGguf([['llama.pooling_type', 'mean']])] }],
    });
    await expect(engine.load('e')).resolves.toBeUndefined();
    expect(fakes.map((f) => f.loads)).toEqual([1]);
    expect(engine.models()[0]?.capabilities).toEqual(['embeddings']);
    expect(await engine.embed('e', ['ab'])).toEqual({ vectors: [[2, 1]], tokens: 2 });
    await expect(runEngine(engine, req({ model: 'e' }))).rejects.toMatchObject({ code: 'unsupported_model' });
  });

  it('answers model_not_found for unknown ids and refuses a non-GGUF file', async () => {
    const { engine } = engineWith({ specs: [{ id: 'bad', files: [new Blob([new Uint8Array(100)])] }] });
    await expect(engine.load('nope')).rejects.toMatchObject({ status: 400, code: 'model_not_found' });
    await expect(engine.load('bad')).rejects.toMatchObject({ status: 500, code: 'model_load_failed' });
  });
});
