/**
 * `POST /v1/chat/completions` through the official `openai` SDK: JSON and streamed answers, the
 * SDK's `stream()` and `runTools()` helpers, tools, structured output, limits, logprobs, reasoning
 * and stop sequences, all with the deterministic `scripted` model.
 */
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { makeRig } from '../helpers/server';

const weatherParams = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city', 'days'],
};
const weather: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherParams },
};
const time: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: {}, required: [] } },
};

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('chat.completions.create', () => {
  it('answers a chat.completion with OpenAI’s fields and usage', async () => {
    const { client } = makeRig({ now: () => 1_700_000_123_000 });
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hello chat' }],
    });
    expect(completion.id).toMatch(/^chatcmpl-[0-9a-f]{48}$/);
    expect(completion).toMatchObject({
      object: 'chat.completion',
      created: 1_700_000_123,
      model: 'scripted',
    });
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'You said: hello chat', refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ]);
    expect(completion.usage).toMatchObject({
      prompt_tokens: 2,
      completion_tokens: 4,
      total_tokens: 6,
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('gives the model system, developer, user, assistant and tool messages', async () => {
    const { client } = makeRig();
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
        { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'assistant', content: 'It is sunny.' },
        { role: 'user', content: '!transcript' },
      ],
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: '' },
      { role: 'tool', content: 'sunny' },
      { role: 'assistant', content: 'It is sunny.' },
      { role: 'user', content: '!transcript' },
    ]);
  });

  it('stops at max_tokens and at max_completion_tokens with finish_reason length', async () => {
    const { client } = makeRig();
    for (const limit of [{ max_tokens: 3 }, { max_completion_tokens: 3 }]) {
      const completion = await client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: '!words 10' }],
        ...limit,
      });
      expect(completion.choices[0]?.message.content).toBe('w1 w2 w3');
      expect(completion.choices[0]?.finish_reason).toBe('length');
      expect(completion.usage?.completion_tokens).toBe(3);
    }
  });

  it('ends before a stop sequence, which is not part of the text', async () => {
    const { client } = makeRig();
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: '!words 10' }],
      stop: ['nope', ' w4'],
    });
    expect(completion.choices[0]?.message.content).toBe('w1 w2 w3');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 4 });
  });

  it('returns logprobs with top_logprobs', async () => {
    const { client } = makeRig();
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
      top_logprobs: 2,
    });
    const content = completion.choices[0]?.logprobs?.content ?? [];
    expect(content.map((l) => l.token)).toEqual(['You', ' said:', ' hi']);
    expect(content[2]).toEqual({
      token: ' hi',
      logprob: 0,
      bytes: [32, 104, 105],
      top_logprobs: [
        { token: ' hi', logprob: 0, bytes: [32, 104, 105] },
        { token: ' alt1', logprob: -1, bytes: [32, 97, 108, 116, 49] },
      ],
    });
  });

  it('counts reasoning in usage and leaves it out of the message', async () => {
    const { client } = makeRig();
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'think' }],
      reasoning_effort: 'high',
    });
    expect(completion.choices[0]?.message.content).toBe('You said: think');
    expect(completion.usage).toMatchObject({
      completion_tokens: 6,
      completion_tokens_details: { reasoning_tokens: 3 },
    });
  });

  it('answers a refusal in message.refusal with null content', async () => {
    const { client } = makeRig();
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: '!refuse' }],
    });
    expect(completion.choices[0]?.message).toMatchObject({
      content: null,
      refusal: "I'm sorry, but I can't help with that.",
    });
  });
});

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
    const chunks = await collect(
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

describe('streaming', () => {
  it('streams a role chunk, content deltas, finish_reason, then the usage chunk', async () => {
    const { client } = makeRig();
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: '!words 3' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'scripted')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '', refusal: null },
      { content: 'w1' },
      { content: ' w2' },
      { content: ' w3' },
      {},
      null,
    ]);
    expect(chunks.slice(0, -1).map((c) => c.usage)).toEqual([null, null, null, null, null]);
    expect(chunks[4]?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks[5]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 },
    });
  });

  it('cuts the stream at a stop sequence', async () => {
    const { client } = makeRig();
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: '!words 9' }],
        stop: 'w3 w',
        stream: true,
      }),
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('w1 w2 ');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('works with the SDK’s stream() helper and its events', async () => {
    const { client } = makeRig();
    const deltas: string[] = [];
    const stream = client.chat.completions
      .stream({ model: 'scripted', messages: [{ role: 'user', content: 'hello stream' }] })
      .on('content', (delta) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(deltas).toEqual(['You', ' said:', ' hello', ' stream']);
    expect(final.choices[0]?.message.content).toBe('You said: hello stream');
    expect(final.choices[0]?.finish_reason).toBe('stop');
  });
});
