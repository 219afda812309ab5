/**
 * The service worker's cross-site guard, fed the request shapes Chromium 156 showed a service worker
 * (see sw/request-guard.ts): another site's form post is refused, the app's own fetch calls pass,
 * whatever their content type, and `forwardToEngine` asks the guard before anything else.
 */
import { describe, expect, it } from 'vitest';
import { type ClientsLike, EngineLinks } from '../../../sw/engine-links';
import { forwardToEngine } from '../../../sw/forward';
import { type GuardedRequest, refuseCrossSite } from '../../../sw/request-guard';
import type { SwTiming } from '../../../sw/timing';
import { validateErrorBody } from '../../helpers/spec';

const APP = 'http://127.0.0.1:4173';

/** A fetch event's request as the rules see it (Node's Request cannot be built with mode `navigate`). */
const seen = (mode: RequestMode, headers: Record<string, string> = {}): GuardedRequest => ({
  mode,
  headers: new Headers(headers),
});

describe('refuseCrossSite', () => {
  it("lets the app's own fetch calls through: JSON, header-less text/plain, no-cors, GET", () => {
    expect(refuseCrossSite(seen('cors', { 'content-type': 'application/json' }), APP)).toBeNull();
    // `fetch('/v1/responses', { method: 'POST', body: JSON.stringify(…) })`: no Origin in the service worker.
    expect(refuseCrossSite(seen('cors', { 'content-type': 'text/plain;charset=UTF-8' }), APP)).toBeNull();
    expect(refuseCrossSite(seen('no-cors', { 'content-type': 'text/plain;charset=UTF-8' }), APP)).toBeNull();
    expect(refuseCrossSite(seen('cors'), APP)).toBeNull();
    // A browser that does expose these headers to the service worker, on a same-origin call.
    expect(refuseCrossSite(seen('cors', { origin: APP, 'sec-fetch-site': 'same-origin' }), APP)).toBeNull();
  });

  it("refuses another site's form post, whatever its enctype, with OpenAI's error shape", () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const refused = refuseCrossSite(
        seen('navigate', { 'content-type': type, origin: 'http://localhost:5555' }),
        APP,
      );
      expect(refused?.status).toBe(403);
      const body = refused?.toJSON();
      expect(validateErrorBody(body)).toEqual([]);
      expect(body?.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'cross_site_request',
        param: null,
      });
    }
  });

  it('refuses every navigation, even a same-origin GET typed in the address bar', () => {
    const refused = refuseCrossSite(seen('navigate', { accept: 'text/html' }), APP);
    expect(refused?.status).toBe(403);
    expect(refused?.code).toBe('cross_site_request');
  });

  it('refuses a foreign or opaque Origin on a non-navigation request', () => {
    for (const origin of ['http://localhost:4173', 'https://127.0.0.1:4173', 'null']) {
      const refused = refuseCrossSite(seen('cors', { origin, 'content-type': 'application/json' }), APP);
      expect(refused?.status).toBe(403);
      expect(refused?.message).toContain(origin);
    }
  });

  it('refuses Sec-Fetch-Site cross-site and same-site, and accepts same-origin and none', () => {
    expect(refuseCrossSite(seen('cors', { 'sec-fetch-site': 'cross-site' }), APP)?.status).toBe(403);
    expect(refuseCrossSite(seen('cors', { 'sec-fetch-site': 'same-site' }), APP)?.status).toBe(403);
    expect(refuseCrossSite(seen('cors', { 'sec-fetch-site': 'same-origin' }), APP)).toBeNull();
    expect(refuseCrossSite(seen('cors', { 'sec-fetch-site': 'none' }), APP)).toBeNull();
  });
});

describe('forwardToEngine', () => {
  const timing: SwTiming = {
    pingMs: 50,
    portWaitMs: 50,
    handleMs: 500,
    heartbeatMs: 50,
    heartbeatPingMs: 50,
  };

  it('answers a navigation 403 before reading its body or asking any page for an engine', async () => {
    const asked: unknown[] = [];
    const client = { type: 'window', postMessage: (m: unknown) => asked.push(m) };
    const clients: ClientsLike = { get: async () => client, matchAll: async () => [client] };
    const form = new Request(`${APP}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"model":"scripted","input":"x","metadata":{"a":"="}}',
    });
    // What Chromium gives the service worker for another site's form post (Node cannot build one).
    Object.defineProperty(form, 'mode', { value: 'navigate' });
    const res = await forwardToEngine(form, 'other-site-client', new EngineLinks(clients, timing), timing);
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('cross_site_request');
    expect(form.bodyUsed).toBe(false);
    expect(asked).toEqual([]);
  });
});
