/**
 * The web-llm engine against the fake MLCEngine where it behaves as web-llm 0.2.86 really does: the
 * empty think block it pre-fills into the output, `max_tokens` cutting a call in half, and a GPU
 * device lost while decoding.
 */
import { describe, expect, it } from 'vitest';
import type { EngineChunk, FunctionToolSpec } from '../../../src/engine/types';
import { collect, done, LLAMA, QWEN3, rejection, request, setup, text } from '../../helpers/webllm-fakes';

const weather: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
const signal = () => new AbortController().signal;
const calls = (chunks: EngineChunk[]) => chunks.filter((c) => c.type === 'tool_call');
/** The chunks' kinds; partial calls left out (tool-call-deltas.test.ts checks them). */
const kinds = (chunks: EngineChunk[]) => chunks.map((c) => c.type).filter((t) => t !== 'tool_call_delta');

describe('Qwen3 with reasoning off (web-llm streams its pre-filled empty think block)', () => {
  it('a strict JSON answer is the JSON alone', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    fake().reply = [{ text: '{"answer"' }, { text: ': "sunny"}' }];
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const chunks = await collect(
      engine.generate(
        request({
          model: QWEN3,
          reasoningEffort: 'none',
          format: { type: 'json_schema', name: 'a', schema, strict: true },
        }),
        signal(),
      ),
    );
    expect(fake().requests[0]?.extra_body).toEqual({ enable_thinking: false });
    expect(text(chunks)).toBe('{"answer": "sunny"}');
    expect(chunks.some((c) => c.type === 'reasoning')).toBe(false);
  });

  it('a tool call comes with no stray text item before it', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    fake().reply = [
      { text: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' },
    ];
    const chunks = await collect(
      engine.generate(request({ model: QWEN3, tools: [weather], reasoningEffort: 'minimal' }), signal()),
    );
    expect(kinds(chunks)).toEqual(['tool_call', 'done']);
  });
});

describe('max_output_tokens in the middle of a call', () => {
  it('ends with length and gives no half call back as text', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    fake().finish = 'length';
    fake().reply = [{ text: 'Checking.\n<tool_call>\n{"name": "get_wea' }, { text: 'ther", "argu' }];
    const chunks = await collect(
      engine.generate(request({ model: QWEN3, tools: [weather], reasoningEffort: 'none' }), signal()),
    );
    expect(text(chunks)).toBe('Checking.');
    expect(calls(chunks)).toEqual([]);
    expect(done(chunks)).toMatchObject({ finishReason: 'length' });
  });
});

describe('GPU device lost while decoding', () => {
  it('answers 503 webgpu_device_lost, not a generic 500, and the next request recovers', async () => {
    const { engine, fake, fakes } = setup();
    await engine.load(LLAMA);
    fake().loseDeviceAtStep = 1;
    const err = await rejection(engine.generate(request(), signal()));
    expect(err).toMatchObject({ status: 503, code: 'webgpu_device_lost' });
    expect(err.message).toContain('will load again on the next request');
    const chunks = await collect(engine.generate(request(), signal()));
    expect(text(chunks)).toBe('Hello world');
    expect(fakes).toHaveLength(2);
    expect(fakes[1]?.reloads).toEqual([LLAMA]);
  });
});

describe('conversation template corrections', () => {
  it('reload carries the conv_config corrections of the model’s family, and none where none are needed', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    await engine.load(LLAMA);
    expect(fake().reloadOptions).toEqual([
      { conv_config: { system_message: '', render_empty_system_message: false } },
      undefined,
    ]);
  });
});

describe('whitespace the grammar allows', () => {
  it('between the think block and a required call is bounded, so a model cannot loop in it', async () => {
    const { planChatRequest } = await import('../../../src/engine/webllm/webllm-request');
    const { structuralTagAccepts } = await import('../../helpers/xgrammar');
    const { body } = planChatRequest(
      request({ model: 'DeepSeek-R1-Distill-Qwen-7B-q4f16_1-MLC', tools: [weather], toolChoice: 'required' }),
      { vision: false },
    );
    const tag = body.response_format?.type === 'structural_tag' ? body.response_format.structural_tag : null;
    const call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>';
    expect(await structuralTagAccepts(tag, `Oslo.\n</think>\n\n${call}`)).toBe(true);
    expect(await structuralTagAccepts(tag, `Oslo.\n</think>${'\n'.repeat(40)}${call}`)).toBe(false);
  });
});
