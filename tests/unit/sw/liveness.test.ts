/**
 * Busy is not dead (issue 27, section 5): the service worker drops an engine link only when it is
 * dead (its tab gone, a worker its tab restarted, or silent past `busyMs`), never because a worker
 * busy with a long step answers a ping late; and a second port from the same tab during start-up
 * (its `controllerchange` handover crossing the answer to a `need-port`) does not end the request
 * in flight on the first one. Real MessageChannels in Node; the worker's business is simulated by
 * holding its answers until a given time.
 */
import * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { createEngineApi } from '../../../src/worker/engine-api';
import type { EngineApi } from '../../../src/worker/protocol';
import { type ClientLike, type ClientsLike, EngineLinks } from '../../../sw/engine-links';
import { forwardToEngine } from '../../../sw/forward';
import type { SwTiming } from '../../../sw/timing';
import { messageChannels } from '../../helpers/closing-channels';

/**
 * Past any test's timeout: a bound this long never fires here, so which bound ended a wait is told by
 * the answer, not by how long it took (broken, a test hangs until its timeout and fails).
 */
const NEVER_MS = 600_000;

/**
 * pingMs is short, busyMs never comes: a busy spell of several pingMs must pass, a dead link must not
 * wait for busyMs. The one test of busyMs itself sets a short one.
 */
const timing: SwTiming = {
  pingMs: 100,
  portWaitMs: 500,
  handleMs: NEVER_MS,
  heartbeatMs: 50,
  heartbeatPingMs: 100,
  trustMs: 2_000,
  busyMs: NEVER_MS,
};

const channel = messageChannels();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An engine worker that is busy (answers nothing, pings included) until `busyUntil()` and counts
 * the requests it serves; each is answered with `{ n }`.
 */
function busyWorker(busyUntil: () => number) {
  const served: string[] = [];
  const wait = async () => {
    while (Date.now() < busyUntil()) await sleep(5);
  };
  const base = createEngineApi({
    server: async () => ({
      fetch: async (req) => {
        served.push(new URL(req.url).pathname);
        return Response.json({ n: served.length });
      },
    }),
    load: async () => {},
    gpuStatus: async () => ({ available: false, adapter: null, features: [] }),
  });
  const api: EngineApi = {
    ...base,
    ping: async () => {
      await wait();
      return base.ping();
    },
    handle: async (data) => {
      await wait();
      return base.handle(data);
    },
  };
  return { served, connect: (port: MessagePort) => Comlink.expose(api, port) };
}

/** The open tab 'tab-1' (or none): `clients.get` is how the service worker tells busy from gone. */
function clients(tab: ClientLike | null): ClientsLike {
  return {
    get: async (id) => (id === 'tab-1' && tab ? tab : undefined),
    matchAll: async () => (tab ? [tab] : []),
  };
}

const quietTab: ClientLike = { type: 'window', postMessage: () => {} };
const get = (path: string) => new Request(`http://app.test${path}`);

/** A link from 'tab-1' to `worker`, adopted as the leader's. */
function adoptFrom(links: EngineLinks, connect: (port: MessagePort) => void, restarted = false) {
  const { port1, port2 } = channel();
  connect(port1);
  return { link: links.adopt(port2, 'tab-1', { leader: true, restarted }), workerEnd: port1 };
}

async function errorOf(res: Response): Promise<{ status: number; message: string }> {
  const body = (await res.json()) as { error: { message: string } };
  return { status: res.status, message: body.error.message };
}

describe('a busy engine worker whose tab is open', () => {
  it('is not dropped by the ping beside a call: one 200, served once, after the busy spell', async () => {
    let busyUntil = 0;
    const worker = busyWorker(() => busyUntil);
    const links = new EngineLinks(clients(quietTab), timing);
    adoptFrom(links, worker.connect);
    // The first request makes the link trusted, so the next one's ping goes beside its call.
    expect((await forwardToEngine(get('/v1/models'), 'tab-1', links, timing)).status).toBe(200);

    busyUntil = Date.now() + 8 * timing.pingMs;
    const started = Date.now();
    const res = await forwardToEngine(get('/v1/responses/resp_1'), 'tab-1', links, timing);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ n: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(8 * timing.pingMs - 20);
    // Not generated twice: the worker served the busy request once, and no retry was needed.
    expect(worker.served).toEqual(['/v1/models', '/v1/responses/resp_1']);
  });

  it('keeps a link busy past pingMs for a request that has to ping it first', async () => {
    let busyUntil = 0;
    const worker = busyWorker(() => busyUntil);
    const untrusting = { ...timing, trustMs: 0 };
    const links = new EngineLinks(clients(quietTab), untrusting);
    adoptFrom(links, worker.connect);
    busyUntil = Date.now() + 6 * timing.pingMs;
    const res = await forwardToEngine(get('/v1/models'), 'tab-1', links, untrusting);
    expect(res.status).toBe(200);
    expect(worker.served).toHaveLength(1);
  });

  it('is dropped after busyMs when it never answers (a tab that cannot restart its worker)', async () => {
    const short = { ...timing, busyMs: 400 };
    const links = new EngineLinks(clients(quietTab), short);
    adoptFrom(links, busyWorker(() => Number.POSITIVE_INFINITY).connect);
    const started = Date.now();
    const res = await forwardToEngine(get('/v1/models'), 'tab-1', links, short);
    // Dropped (the handle deadline never comes), then a new port asked for, which the quiet tab
    // never hands over: the 503 of the port wait, reached only once the link was dropped.
    expect(await errorOf(res)).toEqual({
      status: 503,
      message: `No tab running the engine handed over a port within ${short.portWaitMs} ms; is a page of this app that called startIntab() still open?`,
    });
    // Not at pingMs: a load only makes this longer, so the lower bound holds on any machine.
    expect(Date.now() - started).toBeGreaterThanOrEqual(short.busyMs - 20);
  });
});

describe('a silent engine worker whose tab is gone', () => {
  it('is dropped at pingMs, as before: a retryable 503 without waiting for busyMs', async () => {
    const links = new EngineLinks(clients(null), timing);
    adoptFrom(links, busyWorker(() => Number.POSITIVE_INFINITY).connect);
    // busyMs and the handle deadline are past the test's timeout: only the ping can end this.
    const res = await forwardToEngine(get('/v1/models'), 'tab-1', links, timing);
    expect(await errorOf(res)).toEqual({
      status: 503,
      message: 'No open page of this app can host the engine; open the app in a tab first.',
    });
    expect(res.headers.get('x-should-retry')).toBe('true');
  });
});

describe('a worker its tab restarted', () => {
  it("ends the call in flight on the stuck worker's link at once, and serves the next request", async () => {
    let busyUntil = 0;
    const links = new EngineLinks(clients(quietTab), timing);
    adoptFrom(links, busyWorker(() => busyUntil).connect);
    expect((await forwardToEngine(get('/v1/models'), 'tab-1', links, timing)).status).toBe(200);
    // Stuck for good (a synchronous infinite loop): the trusted link's call goes out beside its ping.
    busyUntil = Number.POSITIVE_INFINITY;
    const pending = forwardToEngine(get('/v1/responses/resp_1'), 'tab-1', links, timing);
    await sleep(3 * timing.pingMs);
    const fresh = busyWorker(() => 0);
    adoptFrom(links, fresh.connect, true);
    const res = await pending;
    expect(await errorOf(res)).toEqual({
      status: 503,
      message: 'The engine worker stopped answering and its tab restarted it; retry the request.',
    });
    expect((await forwardToEngine(get('/v1/models'), 'tab-1', links, timing)).status).toBe(200);
    expect(fresh.served).toEqual(['/v1/models']);
  });
});

describe('a retired link (a newer port from the same tab took over)', () => {
  it('still ends its stream when that tab leaves', async () => {
    const links = new EngineLinks(clients(quietTab), timing);
    const stalled = createEngineApi({
      server: async () => ({
        fetch: async () =>
          new Response(
            new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('data: 1\n\n')) }),
            { headers: { 'content-type': 'text/event-stream' } },
          ),
      }),
      load: async () => {},
      gpuStatus: async () => ({ available: false, adapter: null, features: [] }),
    });
    const connect = (port: MessagePort) => Comlink.expose(stalled, port);
    adoptFrom(links, connect);
    const res = await forwardToEngine(get('/v1/responses/resp_1?stream=true'), 'tab-1', links, timing);
    const reader = res.body?.getReader();
    expect((await reader?.read())?.done).toBe(false);
    adoptFrom(links, connect); // retires the first link, whose body is still streaming
    const next = reader?.read();
    links.leave('tab-1');
    await expect(next).rejects.toMatchObject({ status: 503 });
  });
});

describe('start-up: a request made while the runtime starts', () => {
  it('is answered when a second port from the same tab arrives while it is in flight on the first', async () => {
    // What the e2e probe saw 7 times in 8: the tab hands a port on `controllerchange` and another in
    // answer to the `need-port` of the request that got there first; the second used to drop the
    // first, and the request in flight on it got "The engine port was replaced" (503).
    let busyUntil = Date.now() + 3 * timing.pingMs; // the worker is still loading its script
    const worker = busyWorker(() => busyUntil);
    let links!: EngineLinks;
    let firstClosed = false;
    const tab: ClientLike = {
      type: 'window',
      postMessage: () => {
        const { workerEnd } = adoptFrom(links, worker.connect);
        workerEnd.addEventListener('close', () => {
          firstClosed = true;
        });
        setTimeout(() => adoptFrom(links, worker.connect), 20);
      },
    };
    links = new EngineLinks(clients(tab), timing);
    const res = await forwardToEngine(get('/v1/models'), 'tab-1', links, timing);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(worker.served).toEqual(['/v1/models']);
    // The next request takes the newer port; the first one is closed once its call is over.
    busyUntil = 0;
    expect((await forwardToEngine(get('/v1/models'), 'tab-1', links, timing)).status).toBe(200);
    await expect.poll(() => firstClosed, { timeout: 60_000 }).toBe(true);
  });

  it('waits for a new worker that answers its first ping late (still loading) instead of a 503', async () => {
    const worker = busyWorker(() => startedAt + 5 * timing.pingMs);
    let startedAt = 0;
    let links!: EngineLinks;
    const tab: ClientLike = {
      type: 'window',
      postMessage: () => {
        startedAt = Date.now();
        adoptFrom(links, worker.connect);
      },
    };
    links = new EngineLinks(clients(tab), timing);
    const res = await forwardToEngine(get('/v1/models'), 'tab-1', links, timing);
    expect(res.status).toBe(200);
  });
});
