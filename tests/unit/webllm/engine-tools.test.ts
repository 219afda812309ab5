import type { AppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import type { EngineChunk, FunctionToolSpec } from '../../../src/engine/types';
import {
  appConfig,
  collect,
  done,
  LLAMA,
  PHI_V,
  QWEN3,
  rejection,
  request,
  setup,
  text,
} from '../../helpers/webllm-fakes';

const weather: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
const signal = () => new AbortController().signal;
const calls = (chunks: EngineChunk[]) => chunks.filter((c) => c.type === 'tool_call');
const reasoning = (chunks: EngineChunk[]) =>
  chunks.flatMap((c) => (c.type === 'reasoning' ? [c.delta] : [])).join('');

const QWEN35 = 'Qwen3.5-0.8B-q4f16_1-MLC';
const MINISTRAL = 'Ministral-3-3B-Reasoning-2512-q4f16_1-MLC';
const R1 = 'DeepSeek-R1-Distill-Qwen-7B-q4f16_1-MLC';
const GEMMA4 = 'gemma-4-E2B-it-q4f16_1-MLC';
const more: AppConfig = {
  model_list: [
    ...appConfig.model_list,
    ...[QWEN35, MINISTRAL, R1, GEMMA4].map((model_id) => ({
      model: `https://hf.co/${model_id}`,
      model_id,
      model_lib: 'https://x/m.wasm',
    })),
  ],
};

describe('WebLLMEngine tool calling', () => {
  it('auto: teaches the native format, constrains calls with a structural tag, parses the call', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().reply = [
      { text: '{"name": "get_' },
      { text: 'weather", "parameters": {"city": ' },
      { text: '"Paris"}}' },
    ];
    const chunks = await collect(engine.generate(request({ tools: [weather] }), signal()));
    expect(calls(chunks)).toEqual([
      { type: 'tool_call', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(done(chunks)).toMatchObject({ finishReason: 'tool_calls' });
    const body = fake().requests[0];
    expect(body).not.toHaveProperty('tools'); // web-llm's own tools work for Hermes models only
    // Meta's calls are the whole reply: the calls, or prose that does not open like one.
    expect(body?.response_format).toMatchObject({
      type: 'structural_tag',
      structural_tag: {
        format: { type: 'or', elements: [{ type: 'tags_with_separator' }, { type: 'sequence' }] },
      },
    });
    expect(body?.messages[0]?.content).toContain(
      'Respond in the format {"name": function name, "parameters"',
    );
  });

  it('auto: streams prose at once, then the call that follows it', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    fake().reply = [
      { text: 'Let me' },
      { text: ' check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' },
    ];
    const it = engine.generate(
      request({ model: QWEN3, tools: [weather], reasoningEffort: 'none' }),
      signal(),
    );
    const iterator = it[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ type: 'text', delta: 'Let me' });
    const rest: EngineChunk[] = [];
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value);
    // The call's arguments streamed before it (tool-call-deltas.test.ts checks them).
    expect(rest.map((c) => c.type).filter((t) => t !== 'tool_call_delta')).toEqual([
      'text',
      'tool_call',
      'done',
    ]);
    expect(text(rest)).toBe(' check.');
  });

  it('history: calls in the native format; results as tool turns only where the template has that role', async () => {
    const messages = [
      { role: 'user' as const, content: 'Weather in Paris and Oslo?' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function' as const,
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'c2',
            type: 'function' as const,
            function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      { role: 'tool' as const, content: '21C', tool_call_id: 'c1', name: 'get_weather' },
      { role: 'tool' as const, content: '3C', tool_call_id: 'c2', name: 'get_weather' },
    ];
    const { engine, fake } = setup();
    await collect(engine.generate(request({ model: LLAMA, messages, tools: [weather] }), signal()));
    await collect(engine.generate(request({ model: QWEN3, messages, tools: [weather] }), signal()));
    const [llama, qwen] = fake().requests;
    // Llama 3.1/3.2's template has the `ipython` tool role: one turn per result.
    expect(llama?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(llama?.messages[2]?.content).toBe(
      '{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}',
    );
    // Qwen's has none (web-llm would throw "Role is not supported"): one user turn of responses.
    expect(qwen?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(qwen?.messages[3]?.content).toBe(
      '<tool_response>\n21C\n</tool_response>\n<tool_response>\n3C\n</tool_response>',
    );
  });

  it('none: the tool section stays (as llama.cpp renders it), no grammar, and a call written is text', async () => {
    // Issue 44, item 4: the prompt is the one every choice gets; only what the reply may call changes.
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    const written = '{"name": "get_weather", "parameters": {"city": "Paris"}}';
    fake().reply = [{ text: written }];
    const chunks = await collect(
      engine.generate(request({ tools: [weather], toolChoice: 'none' }), signal()),
    );
    expect(calls(chunks)).toEqual([]);
    expect(text(chunks)).toBe(written);
    expect(done(chunks)).toMatchObject({ finishReason: 'stop' });
    expect(fake().requests[0]?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(fake().requests[0]?.messages[0]?.content).toContain('"name": "get_weather"');
    expect(fake().requests[0]).not.toHaveProperty('response_format');
  });
});

describe('WebLLMEngine message rules web-llm enforces', () => {
  it('an input that ends with an assistant turn is a 400 on input, before any GPU work', async () => {
    const { engine, fakes } = setup();
    const err = await rejection(
      engine.generate(
        request({
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hel' },
          ],
        }),
        signal(),
      ),
    );
    expect(err).toMatchObject({ status: 400, param: 'input' });
    expect(fakes).toHaveLength(0);
  });

  it('blob: images become data: URLs and relative ones absolute, as web-llm accepts only those', async () => {
    const { engine, fake } = setup();
    const blobUrl = URL.createObjectURL(new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }));
    const location = globalThis.location;
    Object.defineProperty(globalThis, 'location', {
      value: { href: 'http://localhost:4173/app/' },
      configurable: true,
    });
    try {
      const content = [
        { type: 'text' as const, text: 'What is this?' },
        { type: 'image_url' as const, image_url: { url: blobUrl } },
        { type: 'image_url' as const, image_url: { url: 'img/cat.png' } },
      ];
      await collect(
        engine.generate(request({ model: PHI_V, messages: [{ role: 'user', content }] }), signal()),
      );
    } finally {
      Object.defineProperty(globalThis, 'location', { value: location, configurable: true });
    }
    const sent = fake().requests[0]?.messages[0]?.content as Array<{
      type: string;
      image_url?: { url: string };
    }>;
    expect(sent.map((p) => p.image_url?.url)).toEqual([
      undefined,
      'data:image/png;base64,iVBORw==',
      'http://localhost:4173/app/img/cat.png',
    ]);
  });
  it('a blob: that holds no image is a 400 invalid_value, before any GPU work', async () => {
    // Where the core had no fetcher to read it first (see tests/integration/blob-images).
    const { engine, fakes } = setup();
    const blobUrl = URL.createObjectURL(new Blob(['just text'], { type: 'image/png' }));
    const content = [{ type: 'image_url' as const, image_url: { url: blobUrl } }];
    const err = await rejection(
      engine.generate(request({ model: PHI_V, messages: [{ role: 'user', content }] }), signal()),
    );
    expect(err).toMatchObject({ status: 400, param: 'input', code: 'invalid_value' });
    expect((err as Error).message).toMatch(/is not an image \(image\/png, 9 bytes\)/);
    expect(fakes).toHaveLength(0);
  });
});

describe('WebLLMEngine reasoning', () => {
  it('splits <think> into reasoning and counts reasoning tokens with the model’s tokenizer', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    fake().reply = [
      { text: '<think>\nLet' },
      { text: ' me see, twice.' },
      { text: '\n</think>\n\n' },
      { text: 'Four.' },
    ];
    const chunks = await collect(
      engine.generate(request({ model: QWEN3, reasoningEffort: 'medium' }), signal()),
    );
    expect(reasoning(chunks)).toBe('Let me see, twice.');
    expect(text(chunks)).toBe('Four.');
    // The fake tokenizer's tokens are words: 4 in "Let me see, twice.", not 3 deltas.
    expect(done(chunks)).toMatchObject({ usage: { output_tokens: 4, reasoning_tokens: 4 } });
    expect(fake().requests[0]).not.toHaveProperty('extra_body');
  });

  it('turns thinking off for effort none/minimal where web-llm supports it (Qwen3)', async () => {
    const { engine, fake } = setup();
    for (const effort of ['none', 'minimal']) {
      await collect(engine.generate(request({ model: QWEN3, reasoningEffort: effort }), signal()));
    }
    await collect(engine.generate(request({ model: LLAMA, reasoningEffort: 'none' }), signal()));
    expect(fake().requests.map((r) => r.extra_body)).toEqual([
      { enable_thinking: false },
      { enable_thinking: false },
      undefined,
    ]);
  });

  it.each([
    [
      QWEN35,
      'Wants Paris.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
    ],
    [
      R1,
      'Wants Paris.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    ],
    [
      R1,
      '<think>\nWants Paris.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    ],
    [MINISTRAL, '[THINK]Wants Paris.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'],
    [
      GEMMA4,
      '<|channel>thought\nWants Paris.<channel|><tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    ],
  ])('%s: reasoning (opened by the template or the model) then a call', async (model, reply) => {
    const { engine, fake } = setup({ appConfig: more });
    await engine.load(model);
    fake().reply = [...reply].map((c) => ({ text: c })); // one character per delta: the worst split
    const chunks = await collect(
      engine.generate(request({ model, tools: [weather], reasoningEffort: 'medium' }), signal()),
    );
    expect(reasoning(chunks)).toBe('Wants Paris.');
    expect(text(chunks)).toBe('');
    expect(calls(chunks)).toEqual([
      { type: 'tool_call', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
  });
});

describe('WebLLMEngine usage', () => {
  it('input_tokens counts the whole prompt when web-llm reused its KV cache (its prompt_tokens counts only the new part)', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().contextTokens = 40; // 40 tokens in context after prefill; web-llm reports prompt_tokens: 12
    const chunks = await collect(engine.generate(request(), signal()));
    expect(done(chunks)).toMatchObject({ usage: { input_tokens: 40, output_tokens: 2 } });
  });
});

describe('WebLLMEngine device loss', () => {
  it('a device lost between requests (web-llm unloads by itself) reloads before generating', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().loseDevice();
    const chunks = await collect(engine.generate(request(), signal()));
    expect(text(chunks)).toBe('Hello world');
    expect(fake().reloads).toEqual([LLAMA, LLAMA]);
  });
});
