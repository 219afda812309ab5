/**
 * web-llm keeps its KV cache for the next turn only when the conversation it holds (the request's
 * messages plus the reply it decoded) equals the next request's history. A tool loop's second turn
 * comes from the Responses items of the first (reasoning, function_call, function_call_output), so
 * intab must write the assistant turn back exactly as the model produced it: the think block where
 * the family's template keeps it, the call in its canonical JSON.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { makeRig } from '../../helpers/server';
import { CITY_WEATHER_TOOLS as tools, CITY_WEATHER as weather } from '../../helpers/tool-specs';
import { QWEN3, setup } from '../../helpers/webllm-fakes';
import { webllmPrompt, webllmReusesCache } from '../../helpers/webllm-prompt';

describe('Qwen3: a tool loop’s second turn extends the first turn’s cached conversation', () => {
  const reply = [
    '<think>',
    '\nThe user wants',
    ' Oslo.\n',
    '</think>',
    '\n\n',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
  ];

  it.each([
    ['stateless (the output items sent back)', false],
    ['with previous_response_id', true],
  ])('%s', async (_, chained) => {
    const { engine, fake } = setup();
    const { client } = makeRig({ engine });
    await engine.load(QWEN3);
    fake().reply = reply.map((text) => ({ text }));
    const first = await client.responses.create({ model: QWEN3, input: 'Weather in Oslo?', tools });
    const call = first.output.find((i) => i.type === 'function_call');
    expect(first.output.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    fake().reply = [{ text: 'It is 21 °C.' }];
    const result = {
      type: 'function_call_output' as const,
      call_id: call?.call_id ?? '',
      output: '{"temp": 21}',
    };
    await client.responses.create({
      model: QWEN3,
      tools,
      ...(chained
        ? { previous_response_id: first.id, input: [result] }
        : { input: [{ role: 'user', content: 'Weather in Oslo?' }, ...first.output, result] as never }),
    });
    const [one, two] = fake().requests;
    if (!one || !two) throw new Error('two requests expected');
    const decoded = reply.join('');
    expect(await webllmReusesCache('qwen3', one, decoded, two)).toBe(true);
    // The text web-llm prefilled and decoded is where the second prompt starts.
    const held = (await webllmPrompt('qwen3', one)) + decoded;
    const prompt = await webllmPrompt('qwen3', two);
    expect(prompt.startsWith(held)).toBe(true);
    // And it is the published template's, which writes the loop's reasoning back the same way.
    const source = readFileSync(
      new URL('../../fixtures/templates/Qwen-Qwen3-0.6B.jinja', import.meta.url),
      'utf8',
    );
    const published = new Template(source).render({
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: '',
          reasoning_content: 'The user wants Oslo.',
          tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Oslo' } } }],
        },
        { role: 'tool', content: '{"temp": 21}' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: weather.name, description: weather.description, parameters: weather.parameters },
        },
      ],
      add_generation_prompt: true,
    });
    expect(prompt).toBe(published);
  });
});
