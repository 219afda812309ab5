/**
 * `POST /v1/chat/completions` through the official `openai` SDK: JSON and streamed answers, the
 * SDK's `stream()` helper, limits, logprobs, reasoning, refusals and stop sequences, all with the
 * deterministic `scripted` model.
 */
import { describe, expect, it } from 'vitest';
import { makeRig, readStream } from '../helpers/server';

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

describe('streaming', () => {
  it('streams a role chunk, content deltas, finish_reason, then the usage chunk', async () => {
    const { client } = makeRig();
    const chunks = await readStream(
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
    const chunks = await readStream(
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
