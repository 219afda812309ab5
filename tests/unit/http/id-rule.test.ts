/**
 * Ids are read as OpenAI reads them (issue 43): letters, digits, `_` and `-` after the prefix, and a
 * well-formed id that does not exist is looked up and not found (a 404 for a resource in the URL,
 * `previous_response_not_found` for `previous_response_id`, in WebSocket mode too), never the 400
 * "Expected an ID that begins with 'resp'" that `resp_openresponses_missing_1796…` got for its `_`.
 * Ids stay bounded: past {@link MAX_ID_CHARS}, or with other characters, a 400 that says what is wrong.
 */
import { describe, expect, it } from 'vitest';
import { IntabWebSocket } from '../../../src/core';
import { isWellFormedId, MAX_ID_CHARS } from '../../../src/core/http/ids';
import { InProcessPython } from '../../helpers/python-runner-double';
import { makeRig } from '../../helpers/server';
import { Conn, last } from '../../helpers/ws-scenarios';

/** OpenAI's id characters, `_` and `-` both, as the Open Responses compliance suite sends them. */
const TAIL = 'openresponses_missing_1796-ab';

const resources: [string, string][] = [
  ['GET', `/responses/resp_${TAIL}`],
  ['DELETE', `/responses/resp_${TAIL}`],
  ['POST', `/responses/resp_${TAIL}/cancel`],
  ['GET', `/responses/resp_${TAIL}/input_items`],
  ['GET', `/conversations/conv_${TAIL}`],
  ['GET', `/conversations/conv_${TAIL}/items`],
  ['GET', `/files/file-${TAIL}`],
  ['GET', `/files/file-${TAIL}/content`],
  ['GET', `/vector_stores/vs_${TAIL}`],
  ['GET', `/vector_stores/vs_${TAIL}/files`],
  ['GET', `/vector_stores/vs_${TAIL}/file_batches/vsfb_${TAIL}`],
  ['GET', `/containers/cntr_${TAIL}`],
  ['GET', `/containers/cntr_${TAIL}/files`],
];

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { message: string; param: string | null; code: string | null } })
    .error;
}

describe('ids', () => {
  it('reads the id rule: the prefix, then letters, digits, _ and -, bounded', () => {
    expect(isWellFormedId(`resp_${TAIL}`, 'resp')).toBe(true);
    expect(isWellFormedId('resp_abc123', 'resp')).toBe(true);
    for (const bad of [
      'resp_',
      'resp',
      'respabc',
      'msg_abc',
      'resp_a.b',
      'resp_a b',
      `resp_${'a'.repeat(MAX_ID_CHARS)}`,
    ])
      expect(isWellFormedId(bad, 'resp')).toBe(false);
  });

  it.each(resources)('%s %s with an id of _ and - that does not exist is a 404', async (method, path) => {
    const { call } = makeRig({ python: new InProcessPython() });
    const res = await call(method, path);
    expect(res.status).toBe(404);
    expect((await errorOf(res)).message).toMatch(/not found|No such|No [a-z ]+ found/i);
  });

  it.each([
    ['/responses', { model: 'scripted', input: 'hi' }],
    ['/responses', { model: 'scripted', input: 'hi', stream: true }],
    ['/responses/compact', { model: 'scripted', input: 'hi' }],
    ['/responses/input_tokens', { model: 'scripted', input: 'hi' }],
  ])(
    'POST %s with a previous_response_id of _ and - that does not exist: previous_response_not_found',
    async (path, body) => {
      const { call } = makeRig();
      const res = await call('POST', path, { ...body, previous_response_id: `resp_${TAIL}` });
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe('previous_response_not_found');
      expect(error.param).toBe('previous_response_id');
    },
  );

  it('is previous_response_not_found in WebSocket mode, store:false as the compliance suite sends it', async () => {
    const { server } = makeRig();
    const conn = await Conn.open(
      () => new IntabWebSocket('ws://intab.test/v1/responses', undefined, { fetch: (r) => server.fetch(r) }),
    );
    const events = await conn.create({
      model: 'scripted',
      store: false,
      previous_response_id: `resp_openresponses_missing_${Date.now()}`,
      input: 'This should fail because the previous response is missing.',
    });
    expect(last(events)).toMatchObject({
      type: 'error',
      status: 400,
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });
    conn.ws.close();
  });

  it('still refuses an id with other characters or past the bound, saying what an id may hold', async () => {
    const { call } = makeRig();
    for (const id of ['resp_a.b', `resp_${'a'.repeat(MAX_ID_CHARS)}`]) {
      const res = await call('POST', '/responses', {
        model: 'scripted',
        input: 'hi',
        previous_response_id: id,
      });
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe('invalid_value');
      expect(error.message).toMatch(/followed by letters, digits, '_' or '-', at most 256 characters/);
    }
    const wrongKind = await call('POST', '/responses', { model: 'scripted', previous_response_id: 'msg_1' });
    expect((await errorOf(wrongKind)).message).toMatch(/Expected an ID that begins with 'resp'\./);
  });
});
