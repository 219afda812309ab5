import { describe, expect, it } from 'vitest';
import type { EngineChunk, FunctionToolSpec } from './types';
import { collect, done, LLAMA, QWEN3, request, setup, text } from './webllm-test-fakes';

const weather: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
const time: FunctionToolSpec = {
  name: 'get_time',
  description: null,
  parameters: { type: 'object', properties: {} },
  strict: null,
};
const signal = () => new AbortController().signal;
const calls = (chunks: EngineChunk[]) => chunks.filter((c) => c.type === 'tool_call');

describe('WebLLMEngine tool calling', () => {
  it('auto: describes the tools in the system prompt and parses a JSON reply into tool calls', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().reply = [
      { text: '{"tool_calls":[{"name":"get_weather",' },
      { text: '"arguments":{"city":"Paris"}}]}' },
    ];
    const chunks = await collect(engine.generate(request({ tools: [weather, time] }), signal()));
    expect(calls(chunks)).toEqual([
      { type: 'tool_call', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(text(chunks)).toBe('');
    expect(done(chunks)).toMatchObject({ finishReason: 'tool_calls' });
    const body = fake().requests[0];
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('response_format');
    const system = body?.messages[0];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('"name":"get_weather"');
    expect(system?.content).toContain('"required":["city"]');
    expect(system?.content).toContain('{"tool_calls":[');
  });

  it('auto: streams a plain-text reply as soon as it is clearly not JSON', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().reply = [{ text: 'It is' }, { text: ' sunny.' }];
    const it = engine.generate(request({ tools: [weather] }), signal())[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual({ type: 'text', delta: 'It is' });
    const rest: EngineChunk[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    expect(text(rest)).toBe(' sunny.');
    expect(done(rest)).toMatchObject({ finishReason: 'stop' });
  });

  it('auto: JSON that is not a call of a known tool comes back as text', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().reply = [{ text: '{"answer": 42}' }];
    const chunks = await collect(engine.generate(request({ tools: [weather] }), signal()));
    expect(calls(chunks)).toEqual([]);
    expect(text(chunks)).toBe('{"answer": 42}');
  });

  it('required: constrains the reply with a schema whose calls are any of the tools', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().reply = [
      { text: '{"tool_calls":[{"name":"get_time","arguments":{}},' },
      { text: '{"name":"get_weather","arguments":{"city":"Oslo"}}]}' },
    ];
    const chunks = await collect(
      engine.generate(request({ tools: [weather, time], toolChoice: 'required' }), signal()),
    );
    expect(calls(chunks).map((c) => c.type === 'tool_call' && c.name)).toEqual(['get_time', 'get_weather']);
    const format = fake().requests[0]?.response_format;
    expect(format?.type).toBe('json_object');
    const schema = JSON.parse(format?.schema ?? 'null');
    const items = schema.properties.tool_calls.items;
    expect(
      items.anyOf.map((c: { properties: { name: { const: string } } }) => c.properties.name.const),
    ).toEqual(['get_weather', 'get_time']);
    expect(items.anyOf[0].properties.arguments).toEqual(weather.parameters);
    expect(schema.properties.tool_calls.minItems).toBe(1);
  });

  it('named: allows only that tool, one call when parallel calls are off', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    fake().reply = [{ text: '{"tool_calls":[{"name":"get_weather","arguments":{"city":"Rome"}}]}' }];
    const req = request({
      tools: [weather, time],
      toolChoice: { name: 'get_weather' },
      parallelToolCalls: false,
    });
    const chunks = await collect(engine.generate(req, signal()));
    expect(calls(chunks)).toEqual([{ type: 'tool_call', name: 'get_weather', arguments: '{"city":"Rome"}' }]);
    const schema = JSON.parse(fake().requests[0]?.response_format?.schema ?? 'null');
    expect(schema.properties.tool_calls.items.properties.name.const).toBe('get_weather');
    expect(schema.properties.tool_calls.maxItems).toBe(1);
    expect(fake().requests[0]?.messages[0]?.content).toContain('You must call the function "get_weather"');
    expect(fake().requests[0]?.messages[0]?.content).not.toContain('get_time');
  });

  it('none: sends no tool prompt and streams text', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    const chunks = await collect(
      engine.generate(request({ tools: [weather], toolChoice: 'none' }), signal()),
    );
    expect(text(chunks)).toBe('Hello world');
    expect(fake().requests[0]?.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('renders assistant tool calls and tool results as text turns web-llm accepts', async () => {
    const { engine, fake } = setup();
    await engine.load(LLAMA);
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
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
    await collect(engine.generate(request({ messages, tools: [weather] }), signal()));
    const sent = fake().requests[0]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent[0]?.content).toMatch(/^Be brief\.\n\n# Tools/);
    expect(JSON.parse(String(sent[2]?.content))).toEqual({
      tool_calls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Oslo' } },
      ],
    });
    expect(sent[3]?.content).toBe(
      'Tool result for get_weather (call c1):\n21C\n\nTool result for get_weather (call c2):\n3C',
    );
  });
});

describe('WebLLMEngine reasoning', () => {
  it('splits <think> into reasoning chunks and counts reasoning tokens', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    fake().reply = [
      { text: '<think>\nLet' },
      { text: ' me see.' },
      { text: '\n</think>\n\n' },
      { text: 'Four.' },
    ];
    const chunks = await collect(
      engine.generate(request({ model: QWEN3, reasoningEffort: 'medium' }), signal()),
    );
    const reasoning = chunks.flatMap((c) => (c.type === 'reasoning' ? [c.delta] : [])).join('');
    expect(reasoning).toBe('Let me see.');
    expect(text(chunks)).toBe('Four.');
    expect(done(chunks)).toMatchObject({ usage: { output_tokens: 4, reasoning_tokens: 3 } });
    expect(fake().requests[0]).not.toHaveProperty('extra_body');
  });

  it('turns thinking off for effort none/minimal on models that support it', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    fake().reply = [{ text: 'Four.' }];
    for (const effort of ['none', 'minimal']) {
      const chunks = await collect(
        engine.generate(request({ model: QWEN3, reasoningEffort: effort }), signal()),
      );
      expect(text(chunks)).toBe('Four.');
    }
    expect(fake().requests.map((r) => r.extra_body)).toEqual([
      { enable_thinking: false },
      { enable_thinking: false },
    ]);
    await collect(engine.generate(request({ model: LLAMA, reasoningEffort: 'none' }), signal()));
    expect(fake().requests[2]).not.toHaveProperty('extra_body');
  });

  it('parses a tool call that follows a think block', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    fake().reply = [
      { text: '<think>need weather</think>' },
      { text: '{"tool_calls":[{"name":"get_weather","arguments":{"city":"Nice"}}]}' },
    ];
    const chunks = await collect(engine.generate(request({ model: QWEN3, tools: [weather] }), signal()));
    expect(chunks.map((c) => c.type)).toEqual(['reasoning', 'tool_call', 'done']);
  });
});
