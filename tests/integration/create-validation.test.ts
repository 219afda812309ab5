/**
 * Validation of every create field: ranges, enums, ids, include values, unsupported features. Each
 * refusal is OpenAI's 400 with the offending `param`, and nothing is stored for it.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

type Case = {
  name: string;
  body: Record<string, unknown>;
  param: string | null;
  code: string;
  message?: RegExp;
};

const bad: Case[] = [
  {
    name: 'temperature below 0',
    body: { temperature: -0.1 },
    param: 'temperature',
    code: 'decimal_below_min_value',
  },
  { name: 'top_p above 1', body: { top_p: 1.5 }, param: 'top_p', code: 'decimal_above_max_value' },
  {
    name: 'top_logprobs above 20',
    body: { top_logprobs: 21 },
    param: 'top_logprobs',
    code: 'integer_above_max_value',
  },
  {
    name: 'top_logprobs not an integer',
    body: { top_logprobs: 1.5 },
    param: 'top_logprobs',
    code: 'invalid_type',
  },
  {
    name: 'max_output_tokens below 16',
    body: { max_output_tokens: 15 },
    param: 'max_output_tokens',
    code: 'integer_below_min_value',
    message: /Expected a value >= 16, but got 15 instead\./,
  },
  {
    name: 'max_tool_calls below 1',
    body: { max_tool_calls: 0 },
    param: 'max_tool_calls',
    code: 'integer_below_min_value',
  },
  {
    name: 'metadata with 17 pairs',
    body: { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
    param: 'metadata',
    code: 'invalid_value',
    message: /at most 16 properties/,
  },
  {
    name: 'metadata key over 64 characters',
    body: { metadata: { ['k'.repeat(65)]: 'v' } },
    param: 'metadata',
    code: 'string_above_max_length',
    message: /maximum length 64, but got a key with length 65/,
  },
  {
    name: 'metadata value over 512 characters',
    body: { metadata: { note: 'v'.repeat(513) } },
    param: 'metadata.note',
    code: 'string_above_max_length',
    message: /maximum length 512, but got a string with length 513/,
  },
  {
    name: 'metadata value not a string',
    body: { metadata: { n: 1 } },
    param: 'metadata.n',
    code: 'invalid_type',
  },
  {
    name: 'message id of the wrong kind',
    body: { input: [{ type: 'message', id: 'fc_1', role: 'user', content: 'x' }] },
    param: 'input[0].id',
    code: 'invalid_value',
    message: /Expected an ID that begins with 'msg'\./,
  },
  {
    name: 'function_call id of the wrong kind',
    body: { input: [{ type: 'function_call', id: 'msg_1', call_id: 'c', name: 'f', arguments: '{}' }] },
    param: 'input[0].id',
    code: 'invalid_value',
  },
  {
    name: 'empty function_call_output call_id',
    body: { input: [{ type: 'function_call_output', call_id: '', output: 'x' }] },
    param: 'input[0].call_id',
    code: 'string_below_min_length',
  },
  {
    name: 'previous_response_id of the wrong kind',
    body: { previous_response_id: 'msg_1' },
    param: 'previous_response_id',
    code: 'invalid_value',
    message: /begins with 'resp'/,
  },
  {
    name: 'include of a hosted tool',
    body: { include: ['message.output_text.logprobs', 'web_search_call.results'] },
    param: 'include[1]',
    code: 'unsupported_value',
  },
  {
    name: 'include of nothing known',
    body: { include: ['bogus'] },
    param: 'include[0]',
    code: 'invalid_value',
  },
  { name: 'truncation unknown', body: { truncation: 'middle' }, param: 'truncation', code: 'invalid_value' },
  {
    name: 'service_tier unknown',
    body: { service_tier: 'gold' },
    param: 'service_tier',
    code: 'invalid_value',
  },
  {
    name: 'verbosity unknown',
    body: { text: { verbosity: 'loud' } },
    param: 'text.verbosity',
    code: 'invalid_value',
  },
  {
    name: 'reasoning effort unknown',
    body: { reasoning: { effort: 'extreme' } },
    param: 'reasoning.effort',
    code: 'invalid_value',
  },
  {
    name: 'reasoning summary unknown',
    body: { reasoning: { summary: 'long' } },
    param: 'reasoning.summary',
    code: 'invalid_value',
  },
  {
    name: 'unknown nested parameter',
    body: { reasoning: { effort: 'low', depth: 3 } },
    param: 'reasoning.depth',
    code: 'unknown_parameter',
  },
  {
    name: 'hosted tool',
    body: { tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] },
    param: 'tools[0].type',
    code: 'unsupported_value',
  },
  {
    name: 'tool name with a space',
    body: { tools: [{ type: 'function', name: 'get weather', parameters: {} }] },
    param: 'tools[0].name',
    code: 'invalid_value',
  },
  {
    name: 'tool_choice naming a missing tool',
    body: { tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'g' } },
    param: 'tool_choice',
    code: 'invalid_value',
  },
  {
    name: 'allowed_tools naming a missing tool',
    body: {
      tools: [{ type: 'function', name: 'f' }],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'g' }] },
    },
    param: 'tool_choice.tools[0]',
    code: 'invalid_value',
  },
  {
    name: 'required without tools',
    body: { tool_choice: 'required' },
    param: 'tool_choice',
    code: 'invalid_value',
  },
  {
    name: 'json_schema without a schema',
    body: { text: { format: { type: 'json_schema', name: 'x' } } },
    param: 'text.format.schema',
    code: 'missing_required_parameter',
  },
  {
    name: 'stream_options unknown field',
    body: { stream: true, stream_options: { include_usage: true } },
    param: 'stream_options.include_usage',
    code: 'unknown_parameter',
  },
];

describe('validation of every field, with nothing stored', () => {
  for (const c of bad) {
    it(`${c.name} → 400 ${c.param}`, async () => {
      const store = new MemoryStore();
      const { call } = makeRig({ store });
      let writes = 0;
      const put = store.putResponse.bind(store);
      store.putResponse = (r, o) => {
        writes++;
        return put(r, o);
      };
      const res = await call('POST', '/responses', { model: 'scripted', input: 'x', ...c.body });
      const message = await expectError(res, 400, c.param, c.code);
      if (c.message) expect(message).toMatch(c.message);
      expect(writes).toBe(0);
      expect((await store.listRecent(10)).responses).toHaveLength(0);
    });
  }

  it('answers 400 previous_response_not_found for a previous response stored with store:false', async () => {
    const { client, call } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: 'x', store: false });
    const res = await call('POST', '/responses', {
      model: 'scripted',
      previous_response_id: r.id,
      input: 'y',
    });
    expect(await expectError(res, 400, 'previous_response_id', 'previous_response_not_found')).toMatch(
      /not found/,
    );
  });
});
