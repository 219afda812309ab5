/**
 * Llama 3.1 / 3.2 tool calling as Meta publishes it: the system block with `Environment: ipython` and
 * the date lines, tools listed in the system message (the template's `tools_in_user_message=false`
 * variant), a call only as the whole reply (JSON, optionally after `<|python_tag|>`, several joined
 * by `;`), never a `{"name": …}` met in the middle of prose.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { CallStream } from '../../../src/engine/tool-formats/call-stream';
import { familyOf } from '../../../src/engine/tool-formats/model-family';
import type { ChatMessage } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { request } from '../../helpers/webllm-fakes';
import { webllmPrompt } from '../../helpers/webllm-prompt';
import { structuralTagAccepts } from '../../helpers/xgrammar';
import { weather } from './families';

const MODEL = 'Llama-3.2-1B-Instruct-q4f16_1-MLC';
const NOW = new Date(Date.UTC(2024, 6, 26, 12));
const format = familyOf(MODEL).tools;

function parse(text: string, size = 1) {
  const stream = new CallStream(format, [weather]);
  const pieces = [];
  for (let i = 0; i < text.length; i += size) pieces.push(...stream.push(text.slice(i, i + size)));
  pieces.push(...stream.finish());
  return {
    calls: pieces.flatMap((p) => (p.type === 'calls' ? p.calls : [])),
    text: pieces.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(''),
  };
}

const paris = { name: 'get_weather', arguments: '{"city":"Paris"}' };
const rome = { name: 'get_weather', arguments: '{"city":"Rome"}' };

describe('Llama 3.x calls, as Meta’s template and parsers read them', () => {
  it('a `{"name": …}` in the middle of prose is prose, for the parser and the grammar', async () => {
    const prose = 'Write it as {"name": "get_weather", "parameters": {"city": "Paris"}} next time.';
    expect(parse(prose)).toEqual({ calls: [], text: prose });
    const { body } = planChatRequest(request({ model: MODEL, tools: [weather] }), { vision: false });
    const tag = body.response_format?.type === 'structural_tag' ? body.response_format.structural_tag : null;
    expect(await structuralTagAccepts(tag, 'Use the form {"name": value}.')).toBe(true);
    expect(await structuralTagAccepts(tag, '{"name": "get_weather", "parameters": {"city": "Paris"}}')).toBe(
      true,
    );
    expect(await structuralTagAccepts(tag, '{"name": "get_weather", "parameters": {"town": "Paris"}}')).toBe(
      false,
    );
  });

  it('reads `{"name":` without a space, and `;`-joined calls with or without spaces', () => {
    expect(parse('{"name":"get_weather","parameters":{"city":"Paris"}}').calls).toEqual([paris]);
    const two =
      '{"name": "get_weather", "parameters": {"city": "Paris"}};{"name": "get_weather", "parameters": {"city": "Rome"}}';
    expect(parse(two)).toEqual({ calls: [paris, rome], text: '' });
    expect(parse(`<|python_tag|>${two.replace(';', '; ')}`, 3)).toEqual({ calls: [paris, rome], text: '' });
  });

  it('the prompt is Meta’s template with tools in the system message, byte for byte', async () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', name: 'get_weather', content: '{"temp": 21}' },
    ];
    const { body } = planChatRequest(
      request({ model: MODEL, tools: [weather], messages }),
      { vision: false },
      { now: NOW },
    );
    const source = readFileSync(
      new URL('../../fixtures/templates/meta-llama-Llama-3.2-3B-Instruct.jinja', import.meta.url),
      'utf8',
    );
    const expected = new Template(source).render({
      messages: messages.map((m) =>
        m.role === 'assistant' && m.tool_calls
          ? {
              ...m,
              tool_calls: m.tool_calls.map((c) => ({
                ...c,
                function: { ...c.function, arguments: JSON.parse(c.function.arguments) },
              })),
            }
          : m,
      ),
      tools: [
        {
          type: 'function',
          function: { name: weather.name, description: weather.description, parameters: weather.parameters },
        },
      ],
      tools_in_user_message: false,
      date_string: '26 Jul 2024',
      bos_token: '',
      add_generation_prompt: true,
    });
    expect(await webllmPrompt('llama-3_1', body)).toBe(expected);
  });
});
