/**
 * Issue 33, item 7: web-llm's `countTokens` counted every tool whatever the tool choice, no JSON
 * instruction and no think block pre-filled for effort `none` (215 counted against 15 real with
 * `tool_choice: none`), while `input_tokens` and `truncation: auto` decide on that count. It now
 * counts the messages a generation sends: checked against the body `planChatRequest` builds. Since
 * issue 44 (item 4) a generation shows every tool whatever the choice, so `none` counts them too.
 */
import { describe, expect, it } from 'vitest';
import type { FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { promptShape } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { countChatTokens } from '../../../src/engine/webllm/webllm-tokens';
import { generateRequest } from '../../helpers/generate-request';

/** One token per character, so a count shows exactly which text went in. */
const chars = { encode: (text: string) => [...text].map((c) => c.codePointAt(0) as number) };

const weather: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};

const QWEN3 = 'Qwen3-0.6B-q4f16_1-MLC';

/** What the generation's body holds: 4 markers a message plus its text, as the count estimates them. */
function sent(req: GenerateRequest): number {
  const { body } = planChatRequest(req, { vision: true });
  return body.messages.reduce((n, m) => n + 4 + (typeof m.content === 'string' ? m.content.length : 0), 0);
}

const cases: Array<[string, Partial<GenerateRequest>]> = [
  ['tool_choice none', { tools: [weather], toolChoice: 'none' }],
  [
    'a named tool among two',
    { tools: [weather, { ...weather, name: 'other' }], toolChoice: { name: 'other' } },
  ],
  ['a JSON format', { format: { type: 'json_object' } }],
  [
    'tools and a JSON schema',
    {
      tools: [weather],
      format: { type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true },
    },
  ],
];

describe('web-llm counts the prompt a generation sends', () => {
  it.each(cases)('%s', (_name, over) => {
    const req = generateRequest({ model: QWEN3, messages: [{ role: 'user', content: 'Weather?' }], ...over });
    expect(countChatTokens(QWEN3, req.messages, req.tools, chars, promptShape(req))).toBe(sent(req));
  });

  it('tool_choice none counts the tool section every choice shows (issue 44, item 4)', () => {
    const req = generateRequest({ model: QWEN3, messages: [{ role: 'user', content: 'Weather?' }] });
    const none = countChatTokens(QWEN3, req.messages, [weather], chars, {
      ...promptShape(req),
      toolChoice: 'none',
    });
    expect(none).toBe(countChatTokens(QWEN3, req.messages, [weather], chars));
    expect(none).toBeGreaterThan(countChatTokens(QWEN3, req.messages, [], chars));
  });

  it('effort none counts the empty think block web-llm pre-fills', () => {
    const req = generateRequest({ model: QWEN3, messages: [{ role: 'user', content: 'Hi' }] });
    const base = countChatTokens(QWEN3, req.messages, [], chars, promptShape(req));
    const off = countChatTokens(QWEN3, req.messages, [], chars, {
      ...promptShape(req),
      reasoningEffort: 'none',
    });
    expect(off - base).toBe('<think>\n\n</think>\n\n'.length);
  });
});
