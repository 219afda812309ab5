/**
 * `POST /v1/responses/input_tokens` counts with the model's own tokenizer once the model is loaded;
 * before that (a real model's tokenizer comes with its weights) the count is an estimate, and the
 * `intab-token-count` header says which.
 */
import { describe, expect, it } from 'vitest';
import { CompositeEngine } from '../../src/engine/composite-engine';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { Engine } from '../../src/engine/types';
import { makeRig } from '../helpers/server';
import { QWEN3, setup } from '../helpers/webllm-fakes';

describe('input_tokens: exact or estimate', () => {
  it('says estimate before a web-llm model is loaded, exact after (counted with its tokenizer)', async () => {
    const { engine: webllm } = setup();
    const { call } = makeRig({ engine: new CompositeEngine([new ScriptedEngine(), webllm]) });
    const count = async () => {
      const res = await call('POST', '/responses/input_tokens', {
        model: QWEN3,
        input: 'one two three four five six seven eight nine ten eleven twelve',
      });
      expect(res.status).toBe(200);
      return { header: res.headers.get('intab-token-count'), n: (await res.json()).input_tokens as number };
    };
    const before = await count();
    expect(before.header).toBe('estimate');
    await webllm.load(QWEN3);
    const after = await count();
    expect(after.header).toBe('exact');
    // The fake tokenizer's tokens are words: 12 words, plus the per-message template allowance (Qwen3
    // sends no system turn here; Llama 3.x always sends its dated one).
    expect(after.n).toBe(12 + 4);
    expect(after.n).not.toBe(before.n);
  });

  it('says exact for scripted, whose tokens are its words', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses/input_tokens', { model: 'scripted', input: 'a b c' });
    expect(res.headers.get('intab-token-count')).toBe('exact');
  });

  it('counts with the request prompt shape (tool choice, format, effort), as generation renders it', async () => {
    const engine: Engine = new ScriptedEngine();
    const shapes: unknown[] = [];
    const count = engine.countTokens.bind(engine);
    engine.countTokens = async (model, messages, tools, opts) => {
      shapes.push(opts?.shape);
      return count(model, messages, tools, opts);
    };
    const { call } = makeRig({ engine });
    const body = {
      model: 'scripted',
      input: 'answer in JSON',
      reasoning: { effort: 'none' },
      text: { format: { type: 'json_object' } },
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} } }],
      tool_choice: 'none',
    };
    expect((await call('POST', '/responses/input_tokens', body)).status).toBe(200);
    expect(shapes.at(-1)).toEqual({
      toolChoice: 'none',
      format: { type: 'json_object' },
      reasoningEffort: 'none',
    });
    shapes.length = 0;
    expect((await call('POST', '/responses', { ...body, truncation: 'auto' })).status).toBe(200);
    expect(shapes[0]).toEqual({
      toolChoice: 'none',
      format: { type: 'json_object' },
      reasoningEffort: 'none',
    });
  });
});
