/**
 * The create surface when things go wrong: strict json_schema output that breaks its schema, an
 * engine failing mid-stream (with its own error code), and a failure after the terminal event.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { type ApiError, invalidRequest, serviceUnavailable } from '../../src/common/api-error';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { Engine } from '../../src/engine/types';
import { MemoryStore } from '../../src/store/memory-store';
import { makeRig } from '../helpers/server';
import { validateResponse } from '../helpers/spec';
import { fakeEngine, streamFrames as stream } from './create-helpers';

describe('strict json_schema output', () => {
  const schema = {
    type: 'object',
    properties: { n: { type: 'integer' } },
    required: ['n'],
    additionalProperties: false,
  };
  const format = { type: 'json_schema', name: 'out', schema, strict: true };

  it('fails a response whose text breaks the schema: 500, stored failed', async () => {
    const rig = makeRig({ engine: fakeEngine([{ type: 'text', delta: '{"n":"one"}' }]) });
    const res = await rig.call('POST', '/responses', { model: 'scripted', input: 'x', text: { format } });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: 'server_error', code: 'server_error' });
    expect(body.error.message).toMatch(
      /does not match the strict JSON schema 'out' \(\$\.n: expected integer/,
    );
    const frames = await stream({ model: 'scripted', input: 'x', text: { format } }, rig);
    const last = frames.at(-1) as { type: string; response: { id: string; status: string; error: unknown } };
    expect(last.type).toBe('response.failed');
    expect(last.response.error).toMatchObject({ code: 'server_error' });
    expect((await rig.client.responses.retrieve(last.response.id)).status).toBe('failed');
  });

  it('lets the same text through when the format is not strict', async () => {
    const rig = makeRig({ engine: fakeEngine([{ type: 'text', delta: '{"n":"one"}' }]) });
    const r = await rig.client.responses.create({
      model: 'scripted',
      input: 'x',
      text: { format: { ...format, type: 'json_schema', strict: false } },
    });
    expect(r.status).toBe('completed');
  });

  it('passes the scripted instance of a schema with nesting, enums and refs', async () => {
    const { client } = makeRig();
    const nested = {
      type: 'object',
      $defs: { tag: { type: 'string', enum: ['a', 'b'] } },
      properties: {
        tags: { type: 'array', items: { $ref: '#/$defs/tag' }, minItems: 2 },
        who: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
          additionalProperties: false,
        },
      },
      required: ['tags', 'who'],
      additionalProperties: false,
    };
    const r = await client.responses.create({
      model: 'scripted',
      input: 'x',
      text: { format: { type: 'json_schema', name: 'n', schema: nested, strict: true } },
    });
    expect(r.status).toBe('completed');
    expect(JSON.parse(r.output_text)).toEqual({ tags: ['a', 'a'], who: { name: 'name' } });
  });
});

describe('failure mid-stream', () => {
  it('ends with response.failed, ids stable across events and the stored object', async () => {
    const rig = makeRig();
    const frames = await stream({ model: 'scripted', input: '!fail now' }, rig);
    const created = frames[0]?.response as { id: string };
    const added = frames.find((f) => f.type === 'response.output_item.added')?.item as { id: string };
    const delta = frames.find((f) => f.type === 'response.output_text.delta');
    expect(delta?.item_id).toBe(added.id);
    const last = frames.at(-1) as {
      type: string;
      response: { id: string; output: { id: string; status: string }[] };
    };
    expect(last.type).toBe('response.failed');
    expect(last.response.id).toBe(created.id);
    expect(last.response.output[0]).toMatchObject({ id: added.id, status: 'incomplete' });
    const stored = await rig.client.responses.retrieve(created.id);
    expect(stored.status).toBe('failed');
    expect(stored.error?.code).toBe('server_error');
    expect(stored.output[0]?.id).toBe(added.id);
    expect(validateResponse(stored)).toEqual([]);
  });

  it('reports a failure after the terminal event as an in-band error event', async () => {
    const store = new MemoryStore();
    const put = store.putResponse.bind(store);
    store.putResponse = async (r, o) => {
      if (o?.durable) throw new Error('The disk is full.');
      return put(r, o);
    };
    const frames = await stream({ model: 'scripted', input: 'hi' }, makeRig({ store }));
    expect(frames.slice(-2).map((f) => f.type)).toEqual(['response.completed', 'error']);
    const error = { code: 'server_error', message: 'The disk is full.', param: null };
    expect(frames.at(-1)).toMatchObject({ ...error, error: { type: 'server_error', ...error } });
    // The SDK surfaces it as an APIError from the stream.
    const sdk = makeRig({ store }).client.responses.stream({ model: 'scripted', input: 'hi' });
    await expect(sdk.finalResponse()).rejects.toMatchObject({
      message: expect.stringMatching(/disk is full/),
    });
  });
});

/** Says one token, then throws `error`, as web-llm does when the context fills or the GPU goes away. */
function failingEngine(error: ApiError): Engine {
  const base = new ScriptedEngine();
  return {
    models: () => base.models(),
    load: (id) => base.load(id),
    countTokens: (id, m, t) => base.countTokens(id, m, t),
    async *generate() {
      yield { type: 'text', delta: 'Partial' };
      throw error;
    },
  };
}

describe('an engine error keeps its code', () => {
  const errors = [
    invalidRequest(
      'input',
      'Prompt tokens exceed the context window size of 4096.',
      'context_length_exceeded',
    ),
    serviceUnavailable('The GPU device was lost.', 'webgpu_device_lost'),
  ];

  for (const error of errors) {
    it(`in response.failed and the stored response (${error.code})`, async () => {
      const rig = makeRig({ engine: failingEngine(error) });
      const frames = await stream({ model: 'scripted', input: 'x' }, rig);
      const last = frames.at(-1) as { type: string; response: { id: string; error: unknown } };
      expect(last.type).toBe('response.failed');
      expect(last.response.error).toEqual({ code: error.code, message: error.message });
      expect((await rig.client.responses.retrieve(last.response.id)).error?.code).toBe(error.code);

      // The SDK's stream ends with the failed response, its code as sent.
      const final = await rig.client.responses.stream({ model: 'scripted', input: 'x' }).finalResponse();
      expect([final.status, final.error?.code]).toEqual(['failed', error.code]);
      // Without streaming, the error is the HTTP answer itself.
      const err = await rig.client.responses
        .create({ model: 'scripted', input: 'x' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err).toMatchObject({ status: error.status, code: error.code, type: error.type });
    });
  }

  it('in a background response', async () => {
    const error = serviceUnavailable('The GPU device was lost.', 'webgpu_device_lost');
    const { client } = makeRig({ engine: failingEngine(error) });
    const queued = await client.responses.create({ model: 'scripted', input: 'x', background: true });
    await expect
      .poll(async () => (await client.responses.retrieve(queued.id)).error?.code)
      .toBe('webgpu_device_lost');
  });
});
