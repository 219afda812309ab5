/** RemoteEngine: the Chat Completions body it sends, and the engine chunks it makes of the stream. */
import { describe, expect, it } from 'vitest';
import { collect, failure, KEY, rig, stop, usage } from '../../helpers/remote-rig';

describe('RemoteEngine: the request it sends', () => {
  it('maps every field of the engine request onto one streaming /chat/completions body', async () => {
    const { fake, engine } = rig({ chunks: [stop, usage] });
    await engine.init();
    await collect(engine, {
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
        {
          role: 'assistant',
          content: null,
          reasoning: 'private',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', content: 'R', tool_call_id: 'c1', name: 'f' },
      ],
      maxOutputTokens: 5,
      temperature: 0.5,
      topP: 0.9,
      seed: 3,
      stop: ['END'],
      topLogprobs: 2,
      format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
      tools: [{ name: 'f', description: 'F', parameters: { type: 'object' }, strict: true }],
      toolChoice: 'auto',
      parallelToolCalls: false,
    });
    const [call] = fake.calls;
    expect(call?.url).toBe('http://llm.test/v1/chat/completions');
    expect(call?.init.method).toBe('POST');
    expect(call?.init.credentials).toBe('omit');
    expect(call?.init.redirect).toBe('manual');
    expect((call?.init.headers as Record<string, string> | undefined)?.authorization).toBe(`Bearer ${KEY}`);
    expect(call?.body).toEqual({
      model: 'up-m',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', content: 'R', tool_call_id: 'c1' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 5,
      temperature: 0.5,
      top_p: 0.9,
      seed: 3,
      stop: ['END'],
      logprobs: true,
      top_logprobs: 2,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'out', schema: { type: 'object' }, strict: true },
      },
      tools: [
        {
          type: 'function',
          function: { name: 'f', description: 'F', parameters: { type: 'object' }, strict: true },
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
  });

  it('sends a named tool_choice as only that tool with "required" (servers that ignore the object form still obey)', async () => {
    const { fake, engine } = rig({ chunks: [stop] });
    const tools = ['a', 'b'].map((name) => ({ name, parameters: null, strict: null }));
    await collect(engine, { tools, toolChoice: { name: 'b' } });
    expect(fake.calls[0]?.body?.tool_choice).toBe('required');
    expect(fake.calls[0]?.body?.tools).toEqual([
      { type: 'function', function: { name: 'b', parameters: { type: 'object', properties: {} } } },
    ]);
  });
});

describe('RemoteEngine: the stream it reads back', () => {
  it('turns content, reasoning_content, logprobs, tool-call deltas and the usage chunk into engine chunks', async () => {
    const { engine } = rig({
      chunks: [
        { choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'think' } }] },
        {
          choices: [
            {
              index: 0,
              delta: { content: 'Hi' },
              logprobs: {
                content: [
                  {
                    token: 'Hi',
                    logprob: -0.5,
                    bytes: [72, 105],
                    top_logprobs: [{ token: 'Hi', logprob: -0.5 }],
                  },
                ],
              },
            },
          ],
        },
        {
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, id: 'x', function: { name: 'f', arguments: '{"a":' } }] },
            },
          ],
        },
        {
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] },
              finish_reason: 'tool_calls',
            },
          ],
        },
        {
          choices: [],
          usage: { prompt_tokens: 7, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 3 } },
        },
      ],
    });
    expect(await collect(engine)).toEqual([
      { type: 'reasoning', delta: 'think' },
      {
        type: 'text',
        delta: 'Hi',
        logprobs: [
          {
            token: 'Hi',
            logprob: -0.5,
            bytes: [72, 105],
            top_logprobs: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105] }],
          },
        ],
      },
      { type: 'tool_call', name: 'f', arguments: '{"a":1}' },
      {
        type: 'done',
        finishReason: 'tool_calls',
        usage: { input_tokens: 7, output_tokens: 4, reasoning_tokens: 0, cached_tokens: 3 },
      },
    ]);
  });

  it('maps finish_reason length to length', async () => {
    const { engine } = rig({
      chunks: [{ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: 'length' }] }, usage],
    });
    expect((await collect(engine)).at(-1)).toMatchObject({ type: 'done', finishReason: 'length' });
  });

  it('reads a server that ignored stream: true and answered one JSON completion', async () => {
    const { engine } = rig({
      body: JSON.stringify({
        choices: [{ index: 0, message: { role: 'assistant', content: 'whole' }, finish_reason: 'stop' }],
        usage: usage.usage,
      }),
    });
    const out = await collect(engine);
    expect(out[0]).toEqual({ type: 'text', delta: 'whole' });
    expect(out.at(-1)).toMatchObject({
      type: 'done',
      finishReason: 'stop',
      usage: { input_tokens: 7, output_tokens: 2 },
    });
  });

  it('fails the run with the server message on an error chunk inside the stream', async () => {
    const { engine } = rig({
      chunks: [{ choices: [{ index: 0, delta: { content: 'a' } }] }, { error: { message: 'slot crashed' } }],
    });
    const err = await failure(collect(engine));
    expect(err.status).toBe(502);
    expect(err.code).toBe('upstream_error');
    expect(err.message).toContain('slot crashed');
  });

  it('fails a stream that ends without a finish_reason (the server stopped mid-answer)', async () => {
    const { engine } = rig({ chunks: [{ choices: [{ index: 0, delta: { content: 'a' } }] }], noDone: true });
    const err = await failure(collect(engine));
    expect(err.status).toBe(502);
    expect(err.message).toContain('without a finish_reason');
  });
});
