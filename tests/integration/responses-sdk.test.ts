import OpenAI from 'openai';
import { toResponseInputItems } from 'openai/lib/responses/ResponseInputItems';
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionToolCall,
} from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store';
import { makeRig, readSse } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';

describe('POST /v1/responses through the openai SDK (scripted model)', () => {
  it('answers a string input with a spec-valid completed response', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: 'hello world' });
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe('You said: hello world');
    expect(r.id).toMatch(/^resp_/);
    expect(r.usage).toMatchObject({ output_tokens: 4, input_tokens: 2, total_tokens: 6 });
    expect(validateResponse(r)).toEqual([]);
  });

  it('puts instructions first and message items after, as the model sees them', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      instructions: 'Be terse.',
      input: [
        { role: 'developer', content: 'dev note' },
        {
          type: 'message',
          id: 'msg_earlier',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'earlier', annotations: [] }],
        },
        { role: 'user', content: [{ type: 'input_text', text: '!transcript' }] },
      ],
    });
    expect(JSON.parse(r.output_text)).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'system', content: 'dev note' },
      { role: 'assistant', content: 'earlier' },
      { role: 'user', content: '!transcript' },
    ]);
    expect(r.instructions).toBe('Be terse.');
  });

  it('streams with responses.stream and its strict accumulator', async () => {
    const { client } = makeRig();
    const stream = client.responses.stream({ model: 'scripted', input: 'stream me please' });
    const types: string[] = [];
    stream.on('event', (e) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('You said: stream me please');
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(5).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  const fn = (name: string): FunctionTool => ({
    type: 'function',
    name,
    strict: true,
    parameters: {
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    },
  });
  const streamed: [string, ResponseCreateParamsStreaming][] = [
    [
      'reasoning with a summary and encrypted content',
      {
        model: 'scripted',
        input: 'think',
        stream: true,
        reasoning: { effort: 'high', summary: 'auto' },
        include: ['reasoning.encrypted_content'],
      },
    ],
    [
      'parallel tool calls',
      { model: 'scripted', input: '!all-tools go', stream: true, tools: [fn('a'), fn('b')] },
    ],
    ['a refusal', { model: 'scripted', input: '!refuse', stream: true }],
    [
      'strict structured output',
      {
        model: 'scripted',
        input: 'json',
        stream: true,
        text: { format: { type: 'json_schema', name: 'q', schema: { ...fn('q').parameters }, strict: true } },
      },
    ],
    ['an incomplete answer', { model: 'scripted', input: '!words 40', stream: true, max_output_tokens: 16 }],
  ];
  for (const [name, body] of streamed) {
    it(`accumulates ${name} with the 7.x stream helper into the stored response`, async () => {
      const { client } = makeRig();
      const final = await client.responses.stream(body).finalResponse();
      expect(final.output.length).toBeGreaterThan(0);
      // The helper adds its parse results (`parsed`, `output_parsed`); everything else is as stored.
      expect(final).toMatchObject(await client.responses.retrieve(final.id));
    });
  }

  it('replays a background response by id with the stream helper, from starting_after', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!delay 5 !words 6',
      background: true,
    });
    const all: number[] = [];
    const full = client.responses.stream({ response_id: r.id });
    full.on('event', (e) => all.push(e.sequence_number));
    const final = await full.finalResponse();
    expect(final.output_text).toBe('w1 w2 w3 w4 w5 w6');
    expect(all[0]).toBe(0);
    const tail: number[] = [];
    const resumed = client.responses.stream({ response_id: r.id, starting_after: 5 });
    resumed.on('event', (e) => tail.push(e.sequence_number));
    await resumed.done();
    expect(tail).toEqual(all.slice(6));
  });

  it('takes a response output back as input through toResponseInputItems', async () => {
    const { client } = makeRig();
    const first = await client.responses.create({
      model: 'scripted',
      input: 'look it up',
      tools: [fn('lookup')],
      reasoning: { effort: 'low' },
      include: ['reasoning.encrypted_content'],
      store: false,
    });
    const call = first.output.find((o): o is ResponseFunctionToolCall => o.type === 'function_call');
    expect(first.output.map((o) => o.type)).toEqual(['reasoning', 'function_call']);
    const next = await client.responses.create({
      model: 'scripted',
      input: [
        { role: 'user', content: 'look it up' },
        ...toResponseInputItems(first.output),
        { type: 'function_call_output', call_id: call?.call_id, output: 'found' },
      ],
      tools: [fn('lookup')],
    });
    expect(next.output_text).toBe('Tool lookup returned: found');
  });

  it('sends SSE frames whose event line equals the type, numbered from 0, each spec-valid', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', { model: 'scripted', input: 'a b c', stream: true });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await readSse(res);
    frames.forEach((f, i) => {
      expect(f.event).toBe(f.data.type);
      expect(f.data.sequence_number).toBe(i);
      expect(validateStreamEvent(f.data)).toEqual([]);
    });
    const deltas = frames
      .filter((f) => f.data.type === 'response.output_text.delta')
      .map((f) => f.data.delta);
    expect(deltas).toEqual(['You', ' said:', ' a', ' b', ' c']);
    const done = frames.at(-1)?.data.response as Record<string, unknown>;
    expect(done.status).toBe('completed');
    // Ids are stable across events and the stored object.
    const added = frames.find((f) => f.data.type === 'response.output_item.added')?.data.item as {
      id: string;
    };
    expect((done.output as { id: string }[])[0]?.id).toBe(added.id);
  });

  it('retrieves and deletes stored responses', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: 'keep me' });
    const again = await client.responses.retrieve(r.id);
    expect(again.output_text).toBe('You said: keep me');
    expect(again.id).toBe(r.id);
    expect(validateResponse(again)).toEqual([]);
    await client.responses.delete(r.id);
    await expect(client.responses.retrieve(r.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.responses.delete(r.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('stores the streamed response as completed', async () => {
    const { client } = makeRig();
    const final = await client.responses.stream({ model: 'scripted', input: 'x' }).finalResponse();
    const stored = await client.responses.retrieve(final.id);
    expect(stored.status).toBe('completed');
    expect(stored.output_text).toBe('You said: x');
  });

  it('does not store with store:false', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: 'x', store: false });
    // `store` is on the wire (and in the spec) but not in the SDK's Response type.
    expect(r).toMatchObject({ store: false });
    await expect(client.responses.retrieve(r.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('carries history through previous_response_id, without inheriting instructions', async () => {
    const { client } = makeRig();
    const first = await client.responses.create({
      model: 'scripted',
      instructions: 'old rules',
      input: 'one',
    });
    const second = await client.responses.create({
      model: 'scripted',
      previous_response_id: first.id,
      input: '!transcript',
    });
    expect(JSON.parse(second.output_text)).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'You said: one' },
      { role: 'user', content: '!transcript' },
    ]);
    expect(second.previous_response_id).toBe(first.id);
  });

  it('stops at max_output_tokens with an incomplete response', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({ model: 'scripted', input: '!words 40', max_output_tokens: 16 });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.output_text.split(' ')).toHaveLength(16);
    expect(validateResponse(r)).toEqual([]);
  });

  it('fails a non-streaming run with a 500 and stores it failed', async () => {
    const store = new MemoryStore();
    const puts: string[] = [];
    const put = store.putResponse.bind(store);
    store.putResponse = (rec, opts) => {
      puts.push(`${rec.response.id}:${rec.response.status}`);
      return put(rec, opts);
    };
    const { client } = makeRig({ store });
    const err = await client.responses.create({ model: 'scripted', input: '!fail' }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.error).toMatchObject({ type: 'server_error', code: 'server_error' });
    const id = puts.at(-1)?.split(':')[0] as string;
    expect(puts.at(-1)).toBe(`${id}:failed`);
    const stored = await client.responses.retrieve(id);
    expect(stored.status).toBe('failed');
    expect(stored.error?.code).toBe('server_error');
  });

  it('ends a failing stream with response.failed', async () => {
    const { call } = makeRig();
    const frames = await readSse(
      await call('POST', '/responses', { model: 'scripted', input: '!fail', stream: true }),
    );
    const last = frames.at(-1)?.data as {
      type: string;
      response: { status: string; error: { code: string } };
    };
    expect(last.type).toBe('response.failed');
    expect(last.response.status).toBe('failed');
    expect(last.response.error.code).toBe('server_error');
    for (const f of frames) expect(validateStreamEvent(f.data)).toEqual([]);
  });

  it('cancels generation and stores cancelled when the stream is cancelled', async () => {
    const { call, client } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: '!delay 20 !words 200',
      stream: true,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('response.output_text.delta')) text += decoder.decode((await reader.read()).value);
    const id = /"id":"(resp_[a-f0-9]+)"/.exec(text)?.[1] as string;
    await reader.cancel();
    let status = '';
    for (let i = 0; i < 100 && status !== 'cancelled'; i++) {
      status = (await client.responses.retrieve(id)).status ?? '';
      await new Promise((r) => setTimeout(r, 10));
    }
    const stored = await client.responses.retrieve(id);
    expect(stored.status).toBe('cancelled');
    expect(stored.output_text.split(' ').length).toBeLessThan(200);
    // No token is produced after the cancel: the stored text stays as it was.
    await new Promise((r) => setTimeout(r, 100));
    expect((await client.responses.retrieve(id)).output_text).toBe(stored.output_text);
  });

  it('lists models with scripted always there', async () => {
    const { client } = makeRig();
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toContain('scripted');
  });
});
