/**
 * Issue 28, defect 10: the byte differences between intab's prompt and the published templates,
 * stated one by one (the goldens catch them too, over whole conversations).
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { request } from '../../helpers/webllm-fakes';
import { weather } from './families';

const NOW = new Date(Date.UTC(2025, 2, 14, 12));

function sent(
  model: string,
  messages: ChatMessage[],
  tools = false,
): Array<{ role: string; content: unknown }> {
  const { body } = planChatRequest(
    request({ model, messages, tools: tools ? [weather] : [] }),
    { vision: false },
    { now: NOW },
  );
  return body.messages as Array<{ role: string; content: unknown }>;
}

describe('Llama 3.x dates its system block as its own template does', () => {
  it.each([
    ['Llama-3.1-8B-Instruct-q4f16_1-MLC', '26 Jul 2024'],
    ['Llama-3.3-70B-Instruct-q3f16_1-MLC', '26 Jul 2024'],
    ['Llama-3.2-1B-Instruct-q4f16_1-MLC', '14 Mar 2025'],
  ])('%s: Today Date: %s', (model, date) => {
    const [system] = sent(model, [{ role: 'user', content: 'Hi' }]);
    expect(system?.content).toBe(`Cutting Knowledge Date: December 2023\nToday Date: ${date}\n\n`);
  });
});

describe('user and system text trimmed where the template trims it', () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: ' Be terse.\n' },
    { role: 'user', content: '\tHi there \n\n' },
  ];
  it.each([
    ['Llama-3.2-1B-Instruct-q4f16_1-MLC', 'Be terse.', 'Hi there'],
    ['Llama-3-8B-Instruct-q4f16_1-MLC', 'Be terse.', 'Hi there'],
    ['Qwen3.5-0.8B-q4f16_1-MLC', 'Be terse.', 'Hi there'],
    ['gemma3-1b-it-q4f16_1-MLC', ' Be terse.\n', 'Hi there'],
  ])('%s', (model, system, user) => {
    const out = sent(model, messages);
    expect(String(out[0]?.content).endsWith(system)).toBe(true);
    expect(out[1]).toEqual({ role: 'user', content: user });
  });
  it('but not where it does not (Qwen3)', () => {
    expect(sent('Qwen3-0.6B-q4f16_1-MLC', messages)[1]?.content).toBe('\tHi there \n\n');
  });
});

it('Ministral writes [TOOL_CALLS] right after the prose of the same turn', () => {
  const out = sent(
    'Ministral-3-3B-Reasoning-2512-q4f16_1-MLC',
    [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', name: 'get_weather', content: '{"temp": 21}' },
    ],
    true,
  );
  expect(out.find((m) => m.role === 'assistant')?.content).toBe(
    'Let me check.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
  );
});
