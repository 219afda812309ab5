/**
 * Firefox has no `Request.prototype.body` (issue 42): its requests answer `undefined` for `body`, and
 * a read of the stream alone made every POST look empty, so every create was a 400. Here a real
 * Request is given Firefox's shape (`body` shadowed by `undefined`) and read the way the service
 * worker and the core read it: the bytes arrive, the cap still holds, a bodyless request stays one.
 */
import { describe, expect, it } from 'vitest';
import { hasBodyStream, readBodyCapped } from '../../../src/core/http/capped-read';
import { serializeRequest } from '../../../src/worker/wire';
import { makeRig } from '../../helpers/server';

/** `req` as Firefox hands it over: the same Request, without a `body` property that answers. */
function firefoxShaped(req: Request): Request {
  Object.defineProperty(req, 'body', { value: undefined });
  return req;
}

const post = (body: string, headers: Record<string, string> = {}) =>
  firefoxShaped(new Request('http://app.test/v1/responses', { method: 'POST', headers, body }));

describe('a request body without Request.body (Firefox)', () => {
  it('is told apart from a request that has no body', () => {
    expect(hasBodyStream(post('{}'))).toBe(false);
    expect(hasBodyStream(new Request('http://app.test/v1/models'))).toBe(true);
  });

  it('crosses to the engine whole through serializeRequest', async () => {
    const data = await serializeRequest(post('{"model":"scripted","input":"hi"}'), 'r1', 1024);
    expect(new TextDecoder().decode(data.body ?? new ArrayBuffer(0))).toBe(
      '{"model":"scripted","input":"hi"}',
    );
  });

  it('is refused with the 413 past the cap, as a streamed body is', async () => {
    const err = await readBodyCapped(post('x'.repeat(2048)), 1024).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 413, code: 'request_too_large' });
  });

  it('reaches the core: a create answers 200 with the text it was sent', async () => {
    const { server } = makeRig();
    const res = await server.fetch(
      post(JSON.stringify({ model: 'scripted', input: 'hello from firefox' }), {
        'content-type': 'application/json',
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { output_text?: string; output: { content: { text: string }[] }[] };
    expect(body.output[0]?.content[0]?.text).toBe('You said: hello from firefox');
  });
});
