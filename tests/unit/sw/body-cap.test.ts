/**
 * The service worker caps a request body before buffering it for the engine: an oversized upload is
 * a 413 as soon as the count passes the core's cap, the rest is never pulled, and no engine is asked.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../../src/core/http/capped-read';
import { serializeRequest } from '../../../src/worker/wire';
import { type ClientsLike, EngineLinks } from '../../../sw/engine-links';
import { forwardToEngine } from '../../../sw/forward';
import type { SwTiming } from '../../../sw/timing';
import { validateErrorBody } from '../../helpers/spec';

const URL_ = 'http://app.test/v1/responses';
const CHUNK = 64 * 1024;

/** A body of `total` bytes, made as it is pulled; `pulled()` says how much was. */
function source(total: number) {
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= total) return controller.close();
        const n = Math.min(CHUNK, total - sent);
        sent += n;
        controller.enqueue(new Uint8Array(n).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    },
    // No pull before someone reads: `pulled()` counts what the reader asked for.
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => sent, cancelled: () => cancelled };
}

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(URL_, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);

const cap = (req: Request, maxBytes = DEFAULT_MAX_BODY_BYTES) => serializeRequest(req, 'r1', maxBytes);

describe('serializeRequest with a cap', () => {
  it('hands on a body under the cap with its method, URL, headers and bytes', async () => {
    const data = await cap(post('{"model":"scripted"}', { 'content-type': 'text/plain;charset=UTF-8' }));
    expect(data.method).toBe('POST');
    expect(data.url).toBe(URL_);
    expect(new Headers(data.headers).get('content-type')).toBe('text/plain;charset=UTF-8');
    expect(new TextDecoder().decode(data.body ?? new ArrayBuffer(0))).toBe('{"model":"scripted"}');
  });

  it('refuses a body without Content-Length once the running count passes the cap, and stops reading', async () => {
    const body = source(4 * DEFAULT_MAX_BODY_BYTES);
    const err = await cap(post(body.stream)).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 413, code: 'request_too_large' });
    expect(body.pulled()).toBeLessThanOrEqual(DEFAULT_MAX_BODY_BYTES + 2 * CHUNK);
    expect(body.cancelled()).toBe(true);
  });

  it('refuses by Content-Length before reading anything', async () => {
    const body = source(2048);
    const req = post(body.stream, { 'content-length': '2048' });
    await expect(cap(req, 1024)).rejects.toMatchObject({ status: 413 });
    expect(body.pulled()).toBe(0);
  });

  it('reads no body for bodyless requests', async () => {
    expect((await cap(new Request('http://app.test/v1/models'), 0)).body).toBeNull();
  });
});

describe('forwardToEngine with an oversized body', () => {
  it('answers 413 in the OpenAI shape without asking any page for an engine', async () => {
    const asked: unknown[] = [];
    const clients: ClientsLike = {
      get: async () => ({ type: 'window', postMessage: (m) => asked.push(m) }),
      matchAll: async () => [{ type: 'window', postMessage: (m) => asked.push(m) }],
    };
    const timing: SwTiming = {
      pingMs: 50,
      portWaitMs: 50,
      handleMs: 500,
      heartbeatMs: 50,
      heartbeatPingMs: 50,
    };
    const body = source(DEFAULT_MAX_BODY_BYTES + 1);
    const res = await forwardToEngine(post(body.stream), 'page-1', new EngineLinks(clients, timing), timing);
    expect(res.status).toBe(413);
    const json = await res.json();
    expect(validateErrorBody(json)).toEqual([]);
    expect(json.error.code).toBe('request_too_large');
    expect(asked).toEqual([]);
  });
});
