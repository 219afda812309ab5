/**
 * An error's `code` is its own, as OpenAI gives it, or null; never its `type` repeated (issue 43: an
 * unmatched `function_call_output` said `"code": "invalid_request_error"` in WebSocket mode, where
 * OpenAI's code is null). `server_error` is the one code that is also a type, on purpose: it is
 * OpenAI's `response.error.code` for a failed response, and a 500 says the same.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntabWebSocket } from '../../src/core';
import { makeRig } from '../helpers/server';
import { Conn } from '../helpers/ws-scenarios';

/** The codes that are also a type, deliberately (see the module's comment). */
const DELIBERATE = new Set(['server_error']);

const UNMATCHED = {
  model: 'scripted',
  input: [
    { type: 'function_call_output', call_id: 'call_openresponses_missing', output: 'No matching tool call.' },
  ],
};

type ErrorBody = { type: string; code: string | null; param: string | null; message: string };

/** Requests that fail, across the routes: each answers OpenAI's error body. */
const failing: [string, string, unknown][] = [
  ['POST', '/responses', UNMATCHED],
  ['POST', '/responses', { ...UNMATCHED, stream: true }],
  ['POST', '/responses', '{not json'],
  ['POST', '/responses', { input: 'no model' }],
  ['POST', '/responses', { model: 'scripted', temperature: 'hot' }],
  ['POST', '/responses', { model: 'scripted', previous_response_id: 'resp_missing' }],
  ['POST', '/responses', { model: 'no-such-model', input: 'hi' }],
  ['POST', '/responses/compact', { model: 'scripted', input: UNMATCHED.input }],
  ['POST', '/responses/input_tokens', { model: 'scripted', unknown_field: 1 }],
  ['GET', '/responses/resp_missing', undefined],
  ['DELETE', '/models', undefined],
  ['GET', '/no/such/route', undefined],
  ['POST', '/chat/completions', { model: 'scripted' }],
  ['POST', '/chat/completions', { model: 'scripted', messages: [{ role: 'tool', content: 'x' }] }],
  ['POST', '/embeddings', { model: 'scripted' }],
  ['POST', '/conversations', { items: 'nope' }],
  ['GET', '/conversations/conv_missing', undefined],
  ['GET', '/files/file-missing', undefined],
  ['GET', '/vector_stores/vs_missing', undefined],
];

describe('error codes', () => {
  it('an unmatched function_call_output is a 400 on input with code null, as OpenAI answers it', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', UNMATCHED);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: ErrorBody }).error).toEqual({
      message: 'No tool call found for function call output with call_id call_openresponses_missing.',
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });
  });

  it('in WebSocket mode too: the error event carries code null, not the type', async () => {
    const { server } = makeRig();
    const conn = await Conn.open(
      () => new IntabWebSocket('ws://intab.test/v1/responses', undefined, { fetch: (r) => server.fetch(r) }),
    );
    const events = await conn.create({ ...UNMATCHED, store: false });
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      status: 400,
      error: { type: 'invalid_request_error', code: null, param: 'input' },
    });
    // A bad message and a missing previous response keep their own codes.
    conn.send('not json');
    expect((await conn.turn()).at(-1)).toMatchObject({ error: { code: 'invalid_json' } });
    const missing = await conn.create({
      model: 'scripted',
      input: 'x',
      previous_response_id: 'resp_missing',
    });
    expect(missing.at(-1)).toMatchObject({ error: { code: 'previous_response_not_found' } });
    conn.ws.close();
  });

  it.each(failing)('%s %s: the code is not the type', async (method, path, body) => {
    const { call } = makeRig();
    const res = await call(method, path, body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    const { error } = (await res.json()) as { error: ErrorBody };
    expect(typeof error.type).toBe('string');
    if (!DELIBERATE.has(error.type)) expect(error.code).not.toBe(error.type);
  });

  it('no source file builds an error whose code repeats its type, nor falls back from code to type', () => {
    const found: string[] = [];
    const visit = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) visit(path);
        else if (path.endsWith('.ts')) {
          const text = readFileSync(path, 'utf8');
          for (const m of text.matchAll(/new ApiError\(\s*[^,()]+,\s*'(\w+)',\s*'(\w+)'/g))
            if (m[1] === m[2] && !DELIBERATE.has(m[1] as string)) found.push(`${path}: ${m[0]}`);
          for (const m of text.matchAll(/code\s*\?\?\s*[\w.]*\btype\b/g)) found.push(`${path}: ${m[0]}`);
        }
      }
    };
    for (const root of ['src', 'sw']) visit(join(process.cwd(), root));
    expect(found).toEqual([]);
  });
});
