/**
 * The router under hostile paths (issue 15, classes 1 and 2): a malformed `%`-escape in a path id is
 * a 400, never a 500, and matching takes time linear in the path, so that 100k slashes or a 1 MB id
 * answer in well under 100 ms. Every route, its `/v1`-less alias, trailing slashes, the 404
 * `Invalid URL (...)` and the 405 keep their behaviour.
 */
import { describe, expect, it } from 'vitest';
import { fastestBlock } from '../helpers/event-loop';
import { makeRig } from '../helpers/server';
import { validateErrorBody } from '../helpers/spec';

const ORIGIN = 'http://intab.test';

async function errorOf(res: Response) {
  const body = await res.json();
  expect(validateErrorBody(body)).toEqual([]);
  return body.error as { message: string; type: string; param: string | null; code: string | null };
}

describe('malformed percent-escapes in a path id', () => {
  const paths: [string, string][] = [
    ['GET', '/v1/responses/%E0%A4%A'],
    ['DELETE', '/v1/responses/resp_%ZZ'],
    ['POST', '/v1/responses/%/cancel'],
    ['GET', '/v1/responses/%C0/input_items'],
    ['GET', '/v1/models/%'],
    ['GET', '/v1/conversations/conv_%FF'],
    ['GET', '/v1/conversations/%E0/items'],
    ['DELETE', '/v1/conversations/conv_1/items/%uD800'],
    ['GET', '/responses/%E0%A4%A'],
  ];
  for (const [method, path] of paths) {
    it(`${method} ${path} → 400 invalid_request_error`, async () => {
      const { server } = makeRig();
      const res = await server.fetch(new Request(`${ORIGIN}${path}`, { method }));
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
      expect(error.message).toBe(`Invalid URL (${method} ${path}): the path has a malformed percent-escape.`);
    });
  }

  it('still decodes a well-formed escape in an id', async () => {
    const { server } = makeRig();
    const res = await server.fetch(new Request(`${ORIGIN}/v1/models/scr%69pted`));
    expect(res.status).toBe(200);
    expect((await res.json()).id).toBe('scripted');
  });
});

describe('routes, aliases, 404 and 405 after the router change', () => {
  const ok: [string, string][] = [
    ['GET', '/v1/models'],
    ['GET', '/v1/models/'],
    ['GET', '/models'],
    ['GET', '/v1/models/scripted'],
    ['GET', '/models/scripted//'],
    ['GET', '/v1/intab/storage'],
    ['GET', '/intab/storage'],
  ];
  for (const [method, path] of ok) {
    it(`${method} ${path} → 200`, async () => {
      const { server } = makeRig();
      expect((await server.fetch(new Request(`${ORIGIN}${path}`, { method }))).status).toBe(200);
    });
  }

  const missing = ['/v1', '/', '/v1/responses/a/b/c', '/v1/responses//cancel', '/v2/models', '/v1models'];
  for (const path of missing) {
    it(`GET ${path} → 404 Invalid URL`, async () => {
      const { server } = makeRig();
      const res = await server.fetch(new Request(`${ORIGIN}${path}`));
      expect(res.status).toBe(404);
      expect((await errorOf(res)).message).toBe(`Invalid URL (GET ${path})`);
    });
  }

  it('answers 405 for a known path with another method, and the static routes win over ids', async () => {
    const { server } = makeRig();
    const put = await server.fetch(new Request(`${ORIGIN}/v1/responses/resp_1`, { method: 'PUT' }));
    expect(put.status).toBe(405);
    expect(await errorOf(put)).toMatchObject({
      code: 'method_not_allowed',
      message: 'Invalid method for URL (PUT /v1/responses/resp_1).',
    });
    // `compact` and `input_tokens` are routes of their own, not response ids: GET on them is a 405.
    for (const path of ['/v1/responses/compact', '/responses/input_tokens/']) {
      const res = await server.fetch(new Request(`${ORIGIN}${path}`));
      expect(res.status).toBe(405);
    }
    const id = await server.fetch(new Request(`${ORIGIN}/v1/responses/resp_missing`));
    expect(id.status).toBe(404);
    expect((await errorOf(id)).message).toMatch(/resp_missing/);
  });
});

describe('matching time is linear in the path', () => {
  const long: [string, string][] = [
    ['100k slashes', '/'.repeat(100_000)],
    ['100k slashes then a letter', `${'/'.repeat(100_000)}x`],
    ['/v1 then 100k slashes', `/v1${'/'.repeat(100_000)}`],
    ['a 900 KB response id', `/v1/responses/${'a'.repeat(900_000)}`],
    ['a 900 KB id then /cancel', `/v1/responses/${'a'.repeat(900_000)}/cancel`],
    ['100k segments', `/v1/conversations/${'a/'.repeat(100_000)}`],
    ['50k repeated route names', `/v1${'/responses'.repeat(50_000)}`],
    ['slashes inside an id route', `/v1/responses/${'/'.repeat(100_000)}x`],
    ['100k escapes', `/v1/responses/${'%41'.repeat(100_000)}`],
  ];
  for (const [name, path] of long) {
    it(`${name}: an OpenAI-shaped 4xx in well under 100 ms, warm and cold`, async () => {
      const { server } = makeRig();
      // Warm: the code path warmed first, so the measure is the path's cost and not the first compile.
      await server.fetch(new Request(`${ORIGIN}/v1/responses/resp_warm`));
      const warm = await fastestBlock(3, () =>
        server.fetch(new Request(`${ORIGIN}${path}`, { method: 'GET' })),
      );
      // Cold: a new server each time, whose very first request is this path (its router built for it).
      const cold = await fastestBlock(3, () =>
        makeRig().server.fetch(new Request(`${ORIGIN}${path}`, { method: 'GET' })),
      );
      for (const { value: res, blockedMs } of [warm, cold]) {
        expect(blockedMs).toBeLessThan(100);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        const error = await errorOf(res);
        // The path is echoed, but never whole (class 9).
        expect(error.message.length).toBeLessThan(1000);
      }
    });
  }
});
