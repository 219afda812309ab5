/**
 * `POST /v1/chat/completions` with tools and structured output through the official `openai` SDK:
 * calls and their results, parallel and chosen calls, streamed calls, the SDK's `runTools()` loop,
 * json_schema and json_object answers, all with the deterministic `scripted` model.
 */
import { describe, expect, it } from 'vitest';
import { makeRig, readStream } from '../helpers/server';
import { time, weather, weatherParams } from './chat-tools';

describe('tools', () => {
  it('calls a tool with call_ ids and finish_reason tool_calls, then reads its result', async () => {
    const { client } = makeRig();
    const messages = [{ role: 'user' as const, content: 'weather in Oslo?' }];
    const first = await client.chat.completions.create({ model: 'scripted', messages, tools: [weather] });
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.id).toMatch(/^call_/);
    expect(call).toMatchObject({
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"city","days":1}' },
    });
    const second = await client.chat.completions.create({
      model: 'scripted',
      tools: [weather],
      messages: [
        ...messages,
        choice?.message as never,
        { role: 'tool', tool_call_id: call?.id ?? '', content: 'sunny' },
      ],
    });
    expect(second.choices[0]?.message.content).toBe('Tool get_weather returned: sunny');
  });

  it('makes parallel calls, one with parallel_tool_calls: false, the chosen or allowed ones, none with none', async () => {
    const { client } = makeRig();
    const ask = (extra: object) =>
      client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: '!all-tools please' }],
        tools: [weather, time],
        ...extra,
      });
    const names = (c: Awaited<ReturnType<typeof ask>>) =>
      (c.choices[0]?.message.tool_calls ?? []).map((t) => (t.type === 'function' ? t.function.name : t.type));
    expect(names(await ask({}))).toEqual(['get_weather', 'get_time']);
    expect(names(await ask({ parallel_tool_calls: false }))).toEqual(['get_weather']);
    expect(names(await ask({ tool_choice: { type: 'function', function: { name: 'get_time' } } }))).toEqual([
      'get_time',
    ]);
    const allowed = await ask({
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_time' } }] },
      },
    });
    expect(names(allowed)).toEqual(['get_time']);
    const none = await ask({ tool_choice: 'none' });
    expect(names(none)).toEqual([]);
    expect(none.choices[0]?.message.content).toBe('You said: !all-tools please');
  });

  it('streams each call as id, type and name, then its arguments', async () => {
    const { client } = makeRig();
    const chunks = await readStream(
      await client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: '!all-tools' }],
        tools: [weather, time],
        stream: true,
      }),
    );
    const deltas = chunks.map((c) => c.choices[0]?.delta.tool_calls).filter(Boolean);
    expect(deltas).toEqual([
      [
        {
          index: 0,
          id: expect.stringMatching(/^call_/),
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
      ],
      [{ index: 0, function: { arguments: '{"city":"city","days":1}' } }],
      [
        {
          index: 1,
          id: expect.stringMatching(/^call_/),
          type: 'function',
          function: { name: 'get_time', arguments: '' },
        },
      ],
      [{ index: 1, function: { arguments: '{}' } }],
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('runs a tool loop with the SDK’s runTools helper', async () => {
    const { client } = makeRig();
    const seen: unknown[] = [];
    const runner = client.chat.completions.runTools({
      model: 'scripted',
      messages: [{ role: 'user', content: 'weather please' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: weatherParams,
            parse: (args: string) => JSON.parse(args) as { city: string; days: number },
            function: (args: { city: string; days: number }) => {
              seen.push(args);
              return 'rainy';
            },
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe('Tool get_weather returned: rainy');
    expect(seen).toEqual([{ city: 'city', days: 1 }]);
  });
});

describe('structured output', () => {
  it('answers json_schema with the schema’s instance, parsed by the SDK', async () => {
    const { client } = makeRig();
    const completion = await client.chat.completions.parse({
      model: 'scripted',
      messages: [{ role: 'user', content: 'a person' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'person',
          strict: true,
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name', 'age'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(completion.choices[0]?.message.parsed).toEqual({ name: 'name', age: 1 });
  });

  it('answers json_object when the messages mention JSON', async () => {
    const { client } = makeRig();
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'reply in JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ echo: 'reply in JSON' });
  });
});
