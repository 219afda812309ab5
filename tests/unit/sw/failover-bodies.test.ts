/**
 * Issue 15, class 16: when the leading tab closes, a body its engine worker was sending must not be
 * lost after a 200. The service worker reads a non-SSE body whole before it answers, racing the
 * link's end, and answers a retryable 503 (`retry-after`) instead of a 200 whose body then errors;
 * a tab that leaves says so (`leaving`, on `pagehide`), so its links end at once.
 */
import * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { createEngineApi } from '../../../src/worker/engine-api';
import { type ClientsLike, EngineLinks } from '../../../sw/engine-links';
import { forwardToEngine } from '../../../sw/forward';
import { type IntabScope, installIntab } from '../../../sw/install-intab';
import type { SwTiming } from '../../../sw/timing';
import { messageChannels } from '../../helpers/closing-channels';

/**
 * Past any test's timeout: a bound this long never fires here, so a call that ends at all was ended
 * by the leader change (no wall-clock margin to break on a loaded machine; broken, the test hangs
 * until its timeout and fails).
 */
const NEVER_MS = 600_000;

/** Only the leader change can end a call: every other bound is past the test's timeout. */
const timing: SwTiming = {
  pingMs: NEVER_MS,
  portWaitMs: NEVER_MS,
  handleMs: NEVER_MS,
  heartbeatMs: NEVER_MS,
  heartbeatPingMs: NEVER_MS,
  wholeBodyMs: NEVER_MS,
};

const channel = messageChannels();

const noClients: ClientsLike = { get: async () => undefined, matchAll: async () => [] };

function workerPort(fetch: (req: Request) => Promise<Response>): MessagePort {
  const { port1, port2 } = channel();
  Comlink.expose(
    createEngineApi({
      server: async () => ({ fetch }),
      load: async () => {},
      gpuStatus: async () => ({ available: false, adapter: null, features: [] }),
    }),
    port1,
  );
  return port2;
}

const get = (path: string) => new Request(`http://app.test${path}`);
const bytes = (s: string) => new TextEncoder().encode(s);

/** A JSON body that sends its first half, then nothing: its tab closed mid-body. */
const halfJson = () =>
  new Response(new ReadableStream({ start: (c) => c.enqueue(bytes('{"id":"resp_1","sta')) }), {
    headers: { 'content-type': 'application/json' },
  });

describe('bodies in flight when the leading tab changes', () => {
  it('answers a retryable 503, not a 200 whose body errors, when the old leader dies mid-body', async () => {
    const links = new EngineLinks(noClients, timing);
    links.adopt(
      workerPort(async () => halfJson()),
      'tab-a',
      { leader: true },
    );
    const pending = forwardToEngine(get('/v1/responses/resp_1'), 'tab-b', links, timing);
    await new Promise((r) => setTimeout(r, 50));
    links.adopt(
      workerPort(async () => Response.json({})),
      'tab-b',
      { leader: true },
    );
    // wholeBodyMs is past the test's timeout: the answer can only come from the leader change.
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'engine_unavailable',
      message: expect.stringContaining('another tab runs it now'),
    });
  });

  it('delivers a whole JSON body even when the leader goes right after answering', async () => {
    const links = new EngineLinks(noClients, timing);
    const body = { id: 'resp_1', status: 'completed', output: 'x'.repeat(200_000) };
    links.adopt(
      workerPort(async () => Response.json(body)),
      'tab-a',
      { leader: true },
    );
    const res = await forwardToEngine(get('/v1/responses/resp_1'), 'tab-a', links, timing);
    links.adopt(
      workerPort(async () => Response.json({})),
      'tab-b',
      { leader: true },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual(body);
  });

  it('streams a body that takes longer than wholeBodyMs (an early-headers answer) instead of holding it', async () => {
    const links = new EngineLinks(noClients, { ...timing, wholeBodyMs: 100 });
    let finish: () => void = () => {};
    const late = new ReadableStream<Uint8Array>({
      start: (c) => {
        c.enqueue(bytes('{"id":'));
        finish = () => {
          c.enqueue(bytes('"resp_1"}'));
          c.close();
        };
      },
    });
    links.adopt(
      workerPort(async () => new Response(late, { headers: { 'content-type': 'application/json' } })),
      'tab-a',
      { leader: true },
    );
    const res = await forwardToEngine(get('/v1/responses/resp_1'), 'tab-a', links, {
      ...timing,
      wholeBodyMs: 100,
    });
    expect(res.status).toBe(200);
    setTimeout(() => finish(), 50);
    expect(await res.json()).toEqual({ id: 'resp_1' });
  });
});

describe('a leaving tab', () => {
  it('ends its links at once: calls in flight get a retryable 503, the next request asks for a port', async () => {
    const listeners = new Map<string, ((e: unknown) => void)[]>();
    const dispatch = (type: string, event: unknown) => {
      for (const l of listeners.get(type) ?? []) l(event);
    };
    const leader = { id: 'leader-tab' };
    let asked = 0;
    const follower = {
      type: 'window',
      postMessage() {
        asked += 1;
        dispatch('message', {
          data: { type: 'port', protocol: 1, leader: true },
          source: { id: 'follower-tab' },
          ports: [workerPort(async () => Response.json({ served: 'follower' }))],
          waitUntil() {},
        });
      },
    };
    const scope = {
      location: { origin: 'http://app.test' },
      clients: {
        get: async (id: string) => (id === 'follower-tab' ? follower : undefined),
        matchAll: async () => [follower],
        claim: async () => {},
      },
      skipWaiting: async () => {},
      addEventListener(type: string, l: (e: unknown) => void) {
        listeners.set(type, [...(listeners.get(type) ?? []), l]);
      },
    } as unknown as IntabScope;
    installIntab(scope);
    dispatch('message', {
      data: { type: 'port', protocol: 1, leader: true },
      source: leader,
      ports: [workerPort(() => new Promise<Response>(() => {}))],
      waitUntil() {},
    });
    const fetch = (path: string): Promise<Response> => {
      let answer: Promise<Response> | null = null;
      dispatch('fetch', {
        request: get(path),
        clientId: 'follower-tab',
        respondWith: (r: Promise<Response>) => (answer = r),
      });
      return answer as unknown as Promise<Response>;
    };
    const inFlight = fetch('/v1/models');
    await new Promise((r) => setTimeout(r, 50));
    dispatch('message', { data: { type: 'leaving' }, source: leader, ports: [], waitUntil() {} });
    // The service worker's own bounds (SW_TIMING: the handle deadline is 270 s) are past the test's
    // timeout, and the leader's worker answers its pings: only `leaving` can end the call, as it says.
    const res = await inFlight;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'The tab that ran the engine closed; retry the request.',
    );
    expect(await (await fetch('/v1/models')).json()).toEqual({ served: 'follower' });
    expect(asked).toBe(1);
  });
});
