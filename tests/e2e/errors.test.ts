/**
 * Bad input gets OpenAI-shaped 4xx errors through the service worker, and neither the service worker
 * nor the engine worker is harmed by it: the next good request succeeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateErrorBody } from '../helpers/spec';
import { postResponse, request } from './api.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

const json = 'application/json';

/** Each malformed request, and the status OpenAI answers it with. */
const malformed: { name: string; req: Parameters<typeof request>[0]; status: number }[] = [
  {
    name: 'invalid JSON',
    req: { method: 'POST', path: '/v1/responses', body: '{"model": "scripted",', contentType: json },
    status: 400,
  },
  {
    name: 'a JSON array body',
    req: { method: 'POST', path: '/v1/responses', body: '[1, 2]', contentType: json },
    status: 400,
  },
  {
    name: 'an empty body',
    req: { method: 'POST', path: '/v1/responses', body: '', contentType: json },
    status: 400,
  },
  {
    name: 'model of the wrong type',
    req: { method: 'POST', path: '/v1/responses', body: '{"model": 5, "input": "hi"}', contentType: json },
    status: 400,
  },
  {
    name: 'input of the wrong type',
    req: {
      method: 'POST',
      path: '/v1/responses',
      body: '{"model": "scripted", "input": 42}',
      contentType: json,
    },
    status: 400,
  },
  {
    name: 'stream of the wrong type',
    req: {
      method: 'POST',
      path: '/v1/responses',
      body: '{"model": "scripted", "input": "hi", "stream": "yes"}',
      contentType: json,
    },
    status: 400,
  },
  {
    name: 'an unknown model',
    req: {
      method: 'POST',
      path: '/v1/responses',
      body: '{"model": "no-such-model", "input": "hi"}',
      contentType: json,
    },
    status: 400,
  },
  { name: 'an unknown route', req: { method: 'GET', path: '/v1/no-such-route' }, status: 404 },
  { name: 'an unknown response id', req: { method: 'GET', path: '/v1/responses/resp_missing' }, status: 404 },
  {
    name: 'a wrong method',
    req: { method: 'PUT', path: '/v1/responses', body: '{}', contentType: json },
    status: 405,
  },
  {
    name: 'a wrong method on models',
    req: { method: 'POST', path: '/v1/models', body: '{}', contentType: json },
    status: 405,
  },
];

describe('malformed requests', () => {
  for (const { name, req, status } of malformed) {
    it(`answers ${name} with ${status} and an OpenAI error body`, async () => {
      const res = await app.page.evaluate(request, req);
      expect(res.status).toBe(status);
      expect(res.contentType).toContain('application/json');
      expect(validateErrorBody(res.body)).toEqual([]);
    });
  }

  it('still answers a good request afterwards', async () => {
    const res = await app.page.evaluate(postResponse, { model: 'scripted', input: 'still here' });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('You said: still here');
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
