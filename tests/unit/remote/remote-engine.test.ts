import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import { RemoteEngine } from '../../../src/engine/remote';
import type { EngineChunk, GenerateRequest } from '../../../src/engine/types';
import { type FakeAnswer, fakeChatServer } from '../../helpers/fake-chat-server';
import { generateRequest } from '../../helpers/generate-request';

const KEY = 'sk-secret-key-1234';

function rig(
  answer: FakeAnswer | ((c: { url: string }) => FakeAnswer),
  extra: { stallMs?: number; firstByteTimeoutMs?: number } = {},
) {
  const fake = fakeChatServer(answer);
  const engine = new RemoteEngine({
    servers: [
      {
        baseURL: `${fake.baseURL}/`,
        apiKey: KEY,
        models: [{ id: 'm', model: 'up-m' }],
        firstByteTimeoutMs: extra.firstByteTimeoutMs,
      },
    ],
    fetch: fake.fetch,
    stallMs: extra.stallMs,
  });
  return { fake, engine };
}

async function collect(
  engine: RemoteEngine,
  req: Partial<GenerateRequest> = {},
  signal = new AbortController().signal,
) {
  const out: EngineChunk[] = [];
  for await (const c of engine.generate(generateRequest({ model: 'm', ...req }), signal)) out.push(c);
  return out;
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const stop = { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };
const usage = {
  choices: [],
  usage: { prompt_tokens: 7, completion_tokens: 2, completion_tokens_details: { reasoning_tokens: 1 } },
};

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

describe('RemoteEngine: errors that say who failed', () => {
  const cases: [number, number, string, string | null][] = [
    [400, 400, 'invalid_request_error', 'messages'],
    [404, 404, 'invalid_request_error', null],
    [422, 422, 'invalid_request_error', null],
    [401, 401, 'authentication_error', null],
    [403, 403, 'permission_error', null],
    [500, 502, 'server_error', null],
    [503, 502, 'server_error', null],
  ];
  for (const [upstream, status, type, param] of cases) {
    it(`upstream ${upstream} → ${status} ${type}, quoting the server and never the key`, async () => {
      const { engine } = rig({
        status: upstream,
        body: JSON.stringify({
          error: { message: `no good (key ${KEY})`, param: upstream === 400 ? 'messages' : undefined },
        }),
      });
      const err = await failure(collect(engine));
      expect([err.status, err.type, err.param]).toEqual([status, type, param]);
      expect(err.message).toContain('no good');
      expect(err.message).toContain('http://llm.test/v1');
      expect(err.message).not.toContain(KEY);
      if (upstream === 401) expect(err.message).toContain('refused the API key');
    });
  }

  it('429 passes retry-after on', async () => {
    const { engine } = rig({
      status: 429,
      headers: { 'retry-after': '7' },
      body: '{"error":{"message":"slow down"}}',
    });
    const err = await failure(collect(engine));
    expect(err.status).toBe(429);
    expect(err.headers['retry-after']).toBe('7');
  });

  it('a 200 body that is not the chat shape is a 502 quoting it', async () => {
    const { engine } = rig({ body: '{"hello":"world"}' });
    const err = await failure(collect(engine));
    expect([err.status, err.code]).toEqual([502, 'upstream_error']);
    expect(err.message).toContain('hello');
  });

  it('an unreachable server is a 502 naming the URL', async () => {
    const { engine } = rig({ throws: new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }) });
    const err = await failure(collect(engine));
    expect([err.status, err.code]).toEqual([502, 'upstream_unreachable']);
    expect(err.message).toContain('http://llm.test/v1');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('no first byte within the bound is a 504, in about the bound', async () => {
    const { engine } = rig({ hang: true }, { firstByteTimeoutMs: 100 });
    const t0 = performance.now();
    const err = await failure(collect(engine));
    expect([err.status, err.code]).toEqual([504, 'upstream_timeout']);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it('a redirect to another origin is not followed (the key goes to baseURL only)', async () => {
    const { fake, engine } = rig({
      status: 307,
      headers: { location: 'http://evil.test/v1/chat/completions' },
      body: '',
    });
    const err = await failure(collect(engine));
    expect(err.status).toBe(502);
    expect(err.message).toContain('evil.test');
    expect(fake.calls).toHaveLength(1);
  });

  it('a redirect within the same origin is followed', async () => {
    const { fake, engine } = rig((c) =>
      c.url.endsWith('/v1/chat/completions')
        ? { status: 308, headers: { location: '/v2/chat/completions' }, body: '' }
        : { chunks: [stop] },
    );
    expect((await collect(engine)).at(-1)).toMatchObject({ type: 'done' });
    expect(fake.calls.map((c) => c.url)).toEqual([
      'http://llm.test/v1/chat/completions',
      'http://llm.test/v2/chat/completions',
    ]);
  });
});

describe('RemoteEngine: abort, models, embeddings', () => {
  it('aborting the signal aborts the upstream fetch and ends the iterator', async () => {
    const { fake, engine } = rig({ hang: true });
    const ctl = new AbortController();
    const run = collect(engine, {}, ctl.signal);
    await new Promise((r) => setTimeout(r, 20));
    ctl.abort();
    await run.catch(() => {});
    expect(fake.calls[0]?.init.signal?.aborted).toBe(true);
  });

  it('lists the server models from GET /models with engine remote when models is absent', async () => {
    const fake = fakeChatServer({
      body: JSON.stringify({
        object: 'list',
        data: [{ id: 'big', owned_by: 'me', meta: { n_ctx_train: 8192 } }],
      }),
    });
    const engine = new RemoteEngine({ servers: [{ baseURL: fake.baseURL }], fetch: fake.fetch });
    await engine.init();
    expect(engine.models()).toEqual([
      expect.objectContaining({ id: 'big', engine: 'remote', owned_by: 'me', contextWindow: 8192 }),
    ]);
    expect(fake.calls[0]?.url).toBe('http://llm.test/v1/models');
  });

  it('a server whose list fails is named by missingReason, and its init does not hang', async () => {
    const fake = fakeChatServer({ status: 401, body: '{"error":{"message":"bad key"}}' });
    const engine = new RemoteEngine({ servers: [{ baseURL: fake.baseURL, apiKey: KEY }], fetch: fake.fetch });
    await expect(engine.init()).rejects.toThrow(/refused the API key/);
    expect(engine.missingReason()).not.toContain(KEY);
  });

  it('embeds through POST /embeddings, in input order', async () => {
    const { fake, engine } = rig({
      body: JSON.stringify({
        data: [
          { index: 1, embedding: [0, 1] },
          { index: 0, embedding: [1, 0] },
        ],
        usage: { prompt_tokens: 4 },
      }),
    });
    expect(await engine.embed('m', ['a', 'b'])).toEqual({
      vectors: [
        [1, 0],
        [0, 1],
      ],
      tokens: 4,
    });
    expect(fake.calls[0]?.url).toBe('http://llm.test/v1/embeddings');
    expect(fake.calls[0]?.body).toMatchObject({ model: 'up-m', input: ['a', 'b'] });
  });

  it('refuses a baseURL with credentials in it, or not http(s)', async () => {
    await expect(() =>
      new RemoteEngine({ servers: [] }).addServer({ baseURL: 'http://u:p@x.test/v1' }),
    ).rejects.toThrow(/apiKey/);
    await expect(() =>
      new RemoteEngine({ servers: [] }).addServer({ baseURL: 'file:///etc' }),
    ).rejects.toThrow(/http/);
  });
});
