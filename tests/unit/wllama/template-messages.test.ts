/**
 * The llama.cpp engine's chat-template messages in each family's format, and the family it detects
 * from a GGUF's chat template.
 */
import { describe, expect, it } from 'vitest';
import { LLAMA3_CHAT_TEMPLATE } from '../../../scripts/build-test-gguf.mjs';
import { ApiError } from '../../../src/common/api-error';
import { familyOf } from '../../../src/engine/tool-formats';
import { mistralCallId } from '../../../src/engine/tool-formats/mistral';
import { detectFamily } from '../../../src/engine/wllama/gguf-family';
import { toTemplateMessages } from '../../../src/engine/wllama/template-messages';

const llama3 = familyOf('Llama-3-8B-Instruct');

const _lookup = {
  name: 'lookup',
  description: 'Find a record',
  parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  strict: true,
};

describe('chat-template messages', () => {
  it('puts one system message first, with the Llama 3 tool section before the caller text', () => {
    const out = toTemplateMessages(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Find 4' },
      ],
      { family: llama3, system: ['Answer in JSON.'], toolSection: 'TOOLS', modelId: 'm' },
    );
    expect(out).toEqual([
      { role: 'system', content: `TOOLS${llama3.tools.separator ?? '\n\n'}Be brief.\n\nAnswer in JSON.` },
      { role: 'user', content: 'Find 4' },
    ]);
  });

  it('writes past calls in the family format and results as a user turn (Llama 3) or raw tool turns (3.1)', () => {
    const history = [
      { role: 'user' as const, content: 'Find 4' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function' as const, function: { name: 'lookup', arguments: '{"id":4}' } },
        ],
      },
      { role: 'tool' as const, content: '{"name":"four"}', tool_call_id: 'c1', name: 'lookup' },
    ];
    const v3 = toTemplateMessages(history, { family: llama3, system: [], toolSection: null, modelId: 'm' });
    expect(v3[1]).toEqual({ role: 'assistant', content: '{"name": "lookup", "parameters": {"id": 4}}' });
    const result = llama3.tools.renderResults([{ name: 'lookup', callId: 'c1', content: '{"name":"four"}' }]);
    expect(v3[2]).toEqual({ role: 'user', content: result });
    const v31 = toTemplateMessages(history, {
      family: familyOf('Llama-3.1-8B'),
      system: [],
      toolSection: null,
      modelId: 'm',
    });
    // 3.1's template writes the tool turn itself (`| tojson`): it gets the raw result (issue 28 defect 4).
    expect(v31[2]).toEqual({ role: 'tool', content: '{"name":"four"}', tool_call_id: mistralCallId('c1') });
  });

  it('merges turns of one role, and refuses a history that ends with the assistant or holds images', () => {
    const merged = toTemplateMessages(
      [
        { role: 'user', content: 'a' },
        { role: 'user', content: [{ type: 'text', text: 'b' }] },
      ],
      { family: llama3, system: [], toolSection: null, modelId: 'm' },
    );
    expect(merged).toEqual([{ role: 'user', content: 'a\n\nb' }]);
    const opts = { family: llama3, system: [], toolSection: null, modelId: 'm' };
    expect(() => toTemplateMessages([{ role: 'assistant', content: 'x' }], opts)).toThrow(ApiError);
    expect(() =>
      toTemplateMessages(
        [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }],
        opts,
      ),
    ).toThrow(/image/);
  });

  it('puts Mistral tools at the start of the last user turn', () => {
    const out = toTemplateMessages(
      [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'second' },
      ],
      {
        family: familyOf('Mistral-7B-Instruct-v0.3'),
        system: [],
        toolSection: '[AVAILABLE_TOOLS] [][/AVAILABLE_TOOLS]',
        modelId: 'm',
      },
    );
    expect(out[0]).toEqual({ role: 'user', content: 'first' });
    expect(out[2]).toEqual({ role: 'user', content: '[AVAILABLE_TOOLS] [][/AVAILABLE_TOOLS]second' });
  });
});

describe('model families from GGUF chat templates', () => {
  it('recognises each family by its template, else by name', () => {
    expect(detectFamily({ chatTemplate: LLAMA3_CHAT_TEMPLATE }).id).toBe('llama3');
    expect(detectFamily({ chatTemplate: '<|start_header_id|>…Environment: ipython' }).id).toBe('llama3.1');
    expect(detectFamily({ chatTemplate: '<|im_start|>…<tool_call>…<think>…reasoning_content' }).id).toBe(
      'qwen3',
    );
    expect(detectFamily({ chatTemplate: '<|im_start|>…<tool_call>…' }).id).toBe('qwen2.5');
    expect(detectFamily({ chatTemplate: '<|im_start|>…<tool_call>…<function=…' }).id).toBe('qwen3.5');
    expect(detectFamily({ chatTemplate: '[AVAILABLE_TOOLS]…[INST]' }).id).toBe('mistral');
    expect(detectFamily({ chatTemplate: '<|tool_call|>…' }).id).toBe('phi4-mini');
    expect(detectFamily({ chatTemplate: '<｜User｜>…<｜Assistant｜>' }).id).toBe('deepseek-r1');
    expect(detectFamily({ chatTemplate: '<|unknown_turn|>', name: 'Llama 3.2 1B Instruct' }).id).toBe(
      'llama3.1',
    );
    expect(detectFamily({ chatTemplate: null, name: 'something else', id: 'x' }).id).toBe('other');
  });
});
