import { describe, expect, it } from 'vitest';
import { makeRig } from '../helpers/server';
import { validateErrorBody } from '../helpers/spec';

type Case = {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  status: number;
  param: string | null;
  code: string | null;
  message?: RegExp;
};

const cases: Case[] = [
  {
    name: 'invalid JSON',
    method: 'POST',
    path: '/responses',
    body: '{"model": "scripted",',
    status: 400,
    param: null,
    code: null,
    message: /could not parse the JSON body/,
  },
  {
    name: 'JSON that is not an object',
    method: 'POST',
    path: '/responses',
    body: '[1,2]',
    status: 400,
    param: null,
    code: null,
  },
  {
    name: 'missing model',
    method: 'POST',
    path: '/responses',
    body: { input: 'hi' },
    status: 400,
    param: 'model',
    code: 'missing_required_parameter',
    message: /^Missing required parameter: 'model'\.$/,
  },
  {
    name: 'unknown model',
    method: 'POST',
    path: '/responses',
    body: { model: 'gpt-nope', input: 'hi' },
    status: 400,
    param: 'model',
    code: 'model_not_found',
  },
  {
    name: 'model of the wrong type',
    method: 'POST',
    path: '/responses',
    body: { model: 7, input: 'hi' },
    status: 400,
    param: 'model',
    code: 'invalid_type',
    message: /expected a string, but got an integer/,
  },
  {
    name: 'temperature as a string',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', temperature: 'hot' },
    status: 400,
    param: 'temperature',
    code: 'invalid_type',
  },
  {
    name: 'temperature above 2',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', temperature: 2.5 },
    status: 400,
    param: 'temperature',
    code: 'decimal_above_max_value',
    message: /Expected a value <= 2, but got 2.5 instead/,
  },
  {
    name: 'unknown parameter',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', frobnicate: 1 },
    status: 400,
    param: 'frobnicate',
    code: 'unknown_parameter',
    message: /^Unknown parameter: 'frobnicate'\.$/,
  },
  {
    name: 'bad nested content type',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', input: [{ role: 'user', content: [{ type: 'input_txt', text: 'x' }] }] },
    status: 400,
    param: 'input[0].content[0].type',
    code: 'invalid_value',
  },
  {
    name: 'bad role',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', input: [{ role: 'robot', content: 'x' }] },
    status: 400,
    param: 'input[0].role',
    code: 'invalid_value',
  },
  {
    name: 'stream not a boolean',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', stream: 'yes' },
    status: 400,
    param: 'stream',
    code: 'invalid_type',
  },
  {
    name: 'unknown previous_response_id',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', previous_response_id: 'resp_abc' },
    status: 400,
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  },
  {
    name: 'malformed previous_response_id',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', previous_response_id: 'nope' },
    status: 400,
    param: 'previous_response_id',
    code: 'invalid_value',
  },
  {
    name: 'unknown route',
    method: 'GET',
    path: '/nothing-here',
    status: 404,
    param: null,
    code: null,
    message: /^Invalid URL \(GET \/v1\/nothing-here\)$/,
  },
  {
    name: 'wrong method',
    method: 'PUT',
    path: '/responses',
    body: {},
    status: 405,
    param: null,
    code: 'method_not_allowed',
  },
  {
    name: 'unknown response id',
    method: 'GET',
    path: '/responses/resp_missing',
    status: 404,
    param: null,
    code: null,
  },
  {
    name: 'delete unknown id',
    method: 'DELETE',
    path: '/responses/resp_missing',
    status: 404,
    param: null,
    code: null,
  },
  {
    name: 'input over the context window',
    method: 'POST',
    path: '/responses',
    body: { model: 'scripted', input: 'w '.repeat(5000) },
    status: 400,
    param: 'input',
    code: 'context_length_exceeded',
  },
];

describe('OpenAI-shaped errors for bad input', () => {
  for (const c of cases) {
    it(`${c.name} → ${c.status}`, async () => {
      const { call } = makeRig();
      const res = await call(c.method, c.path, c.body);
      expect(res.status).toBe(c.status);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      const body = await res.json();
      expect(validateErrorBody(body)).toEqual([]);
      expect(body.error.param).toBe(c.param);
      expect(body.error.code).toBe(c.code);
      if (c.message) expect(body.error.message).toMatch(c.message);
    });
  }

  it('refuses a body over the size cap with 413 and stores nothing', async () => {
    const { call, store } = makeRig({ maxBodyBytes: 1024 });
    let writes = 0;
    store.putResponse = async () => {
      writes++;
    };
    const res = await call('POST', '/responses', { model: 'scripted', input: 'x'.repeat(4096) });
    expect(res.status).toBe(413);
    expect(validateErrorBody(await res.json())).toEqual([]);
    expect(writes).toBe(0);
  });

  it('keeps answering good requests after a run of malformed ones', async () => {
    const { call } = makeRig();
    for (const c of cases) await call(c.method, c.path, c.body);
    const res = await call('POST', '/responses', { model: 'scripted', input: 'still here' });
    expect(res.status).toBe(200);
    expect((await res.json()).output[0].content[0].text).toBe('You said: still here');
  });

  it('truncation:auto drops the oldest items to fit the context window', async () => {
    const { client } = makeRig();
    const r = await client.responses.create({
      model: 'scripted',
      truncation: 'auto',
      input: [
        { role: 'user', content: 'old '.repeat(3000) },
        { role: 'assistant', content: 'reply '.repeat(2000) },
        { role: 'user', content: '!transcript' },
      ],
    });
    // 3000 + 2000 + 1 tokens do not fit in 4096; dropping the oldest message is enough.
    const seen = JSON.parse(r.output_text) as { role: string }[];
    expect(seen.map((m) => m.role)).toEqual(['assistant', 'user']);
  });
});
