/**
 * The service worker's forwarding, in Node with real MessageChannels: how it finds a live engine
 * port, and how each failure (no page, a silent page, a dead port, a stale protocol, a slow or
 * vanished engine) becomes an OpenAI-shaped error instead of a hung or rejected respondWith.
 */
import * as Comlink from 'comlink';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createEngineApi, type EngineApiDeps } from '../../../src/worker/engine-api';
import type { EngineApi } from '../../../src/worker/protocol';
import { type ClientLike, type ClientsLike, EngineLinks } from '../../../sw/engine-links';
import { forwardToEngine } from '../../../sw/forward';
import type { SwTiming } from '../../../sw/timing';
import { messageChannels } from '../../helpers/closing-channels';

/** Past any test's timeout: a bound this long never fires here, so the answer says which one did. */
const NEVER_MS = 600_000;

const fast: SwTiming = {
  pingMs: 100,
  portWaitMs: 200,
  handleMs: 1_000,
  heartbeatMs: 50,
  heartbeatPingMs: 100,
  // A silent worker whose tab is open ('page-1') is taken for busy until busyMs (its tab would
  // restart it: see liveness.test.ts): never here, so a live ping that a loaded machine delays past
  // pingMs still counts. A dead worker's tab is one `clients.get` no longer finds: dropped at pingMs.
  busyMs: NEVER_MS,
};

const channel = messageChannels();

type Fetch = (req: Request) => Promise<Response>;

/** An engine worker: exposes the real API (with a fake core) on each port it is given. */
function engineWorker(fetch: Fetch, api: Partial<EngineApi> = {}) {
  const deps: EngineApiDeps = {
    server: async () => ({ fetch }),
    load: async () => {},
    gpuStatus: async () => ({ available: false, adapter: null, features: [] }),
  };
  return (port: MessagePort) => Comlink.expose({ ...createEngineApi(deps), ...api }, port);
}

/**
 * A page that answers `need-port` by wiring a fresh channel between the links and `worker`, handed
 * over as from the tab `id` (the n-th port as from `id(n)`).
 */
function page(
  links: () => EngineLinks,
  worker: ((port: MessagePort) => void) | null,
  id: string | ((n: number) => string) = 'page-1',
) {
  const asked: unknown[] = [];
  const client: ClientLike = {
    type: 'window',
    postMessage(message) {
      asked.push(message);
      if (!worker) return; // a page that never answers
      const { port1, port2 } = channel();
      worker(port1);
      links().adopt(port2, typeof id === 'string' ? id : id(asked.length));
    },
  };
  return { client, asked };
}

function clientsOf(...pages: ClientLike[]): ClientsLike {
  return {
    get: async (id) => (id === 'page-1' ? pages[0] : undefined),
    matchAll: async () => pages,
  };
}

const json = (body: unknown) => Response.json(body);
const get = (path: string) => new Request(`http://app.test${path}`);

async function errorOf(res: Response): Promise<{ status: number; code: string | null; type: string }> {
  const body = (await res.json()) as { error: { code: string | null; type: string } };
  return { status: res.status, code: body.error.code, type: body.error.type };
}

describe('forwardToEngine', () => {
  it('asks the requesting page for a port once, then reuses it', async () => {
    let links!: EngineLinks;
    const p = page(
      () => links,
      engineWorker(async (req) => json({ path: new URL(req.url).pathname })),
    );
    links = new EngineLinks(clientsOf(p.client), fast);

    for (const path of ['/v1/models', '/v1/responses/resp_1']) {
      const res = await forwardToEngine(get(path), 'page-1', links, fast);
      expect(await res.json()).toEqual({ path });
    }
    expect(p.asked).toEqual([{ type: 'need-port' }]);
  });

  it('answers 503 engine_unavailable when no page is open', async () => {
    const links = new EngineLinks(clientsOf(), fast);
    const res = await forwardToEngine(get('/v1/models'), '', links, fast);
    expect(await errorOf(res)).toEqual({ status: 503, code: 'engine_unavailable', type: 'server_error' });
  });

  it('answers 503 when the page never hands over a port', async () => {
    let links!: EngineLinks;
    const p = page(() => links, null);
    links = new EngineLinks(clientsOf(p.client), fast);
    const started = Date.now();
    const res = await forwardToEngine(get('/v1/models'), 'page-1', links, fast);
    expect(await errorOf(res)).toEqual({ status: 503, code: 'engine_unavailable', type: 'server_error' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(fast.portWaitMs - 5);
  });

  it('replaces a port that died silently (no close event, pings unanswered)', async () => {
    let links!: EngineLinks;
    const p = page(
      () => links,
      engineWorker(async () => json({ ok: true })),
    );
    links = new EngineLinks(clientsOf(p.client), fast);
    // A port whose peer has nothing listening, from a tab that closed: exactly what a stopped
    // worker's port looks like.
    links.adopt(channel().port2, 'closed-tab');

    const res = await forwardToEngine(get('/v1/models'), 'page-1', links, fast);
    expect(res.status).toBe(200);
    expect(p.asked).toEqual([{ type: 'need-port' }]);
  });

  it('takes a link that answered moments ago without a ping first, and checks it beside the call', async () => {
    const calls: string[] = [];
    const counting = (worker: (port: MessagePort) => void) => (port: MessagePort) => {
      // A second listener on the same port: it sees each comlink message as the worker does.
      port.addEventListener('message', (e: MessageEvent) => {
        const path = (e.data as { path?: string[] }).path;
        if (path?.[0]) calls.push(path[0]);
      });
      worker(port);
    };
    for (const [trustMs, order] of [
      [undefined, ['ping', 'handle', 'handle', 'ping']],
      [0, ['ping', 'handle', 'ping', 'handle']],
    ] as const) {
      calls.length = 0;
      const timing = { ...fast, heartbeatMs: 60_000, ...(trustMs === undefined ? {} : { trustMs }) };
      let links!: EngineLinks;
      const p = page(() => links, counting(engineWorker(async () => json({ ok: true }))));
      links = new EngineLinks(clientsOf(p.client), timing);
      for (let i = 0; i < 2; i++) {
        expect((await forwardToEngine(get('/v1/models'), 'page-1', links, timing)).status).toBe(200);
      }
      await expect.poll(() => calls.length).toBe(4);
      expect(calls).toEqual(order);
    }
  });

  it('counts each chunk of a streamed answer as hearing from the link: the request after a long stream skips the ping', async () => {
    const calls: string[] = [];
    const timing = { ...fast, heartbeatMs: 60_000, trustMs: 100 };
    // The links' clock (performance.now) is the test's: it moves only as the stream does, so a loaded
    // machine's slow turns cannot age the link past trustMs between the chunks.
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    onTestFinished(() => now.mockRestore());
    // An answer that streams for three times trustMs: only its chunks show the worker alive since.
    const slowStream = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            for (let i = 0; i < 6; i++) {
              clock += 50;
              controller.enqueue(new TextEncoder().encode(`data: ${i}\n\n`));
              await new Promise((r) => setTimeout(r, 5));
            }
            controller.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    let links!: EngineLinks;
    const p = page(
      () => links,
      (port) => {
        port.addEventListener('message', (e: MessageEvent) => {
          const path = (e.data as { path?: string[] }).path;
          if (path?.[0]) calls.push(path[0]);
        });
        engineWorker(slowStream)(port);
      },
    );
    links = new EngineLinks(clientsOf(p.client), timing);
    const first = await forwardToEngine(get('/v1/responses'), 'page-1', links, timing);
    expect(await first.text()).toContain('data: 5');
    expect(calls).toEqual(['ping', 'handle']);
    const second = await forwardToEngine(get('/v1/responses'), 'page-1', links, timing);
    await second.body?.cancel();
    // Trusted: the call goes first and its check beside it (a ping first would come before it).
    await expect.poll(() => calls.length).toBe(4);
    expect(calls).toEqual(['ping', 'handle', 'handle', 'ping']);
  });

  it('answers a retryable 503 within pingMs when a link it trusted has died, then asks for a new port', async () => {
    let ports = 0;
    const worker = engineWorker(async () => json({ ok: true }));
    let links!: EngineLinks;
    const p = page(
      () => links,
      (port) => {
        // The first port's worker answers once, then goes silent (its tab froze or crashed).
        if (++ports === 1) {
          let calls = 0;
          const real = port.postMessage.bind(port) as (message: unknown, transfer: Transferable[]) => void;
          port.postMessage = ((message: unknown, transfer: Transferable[] = []) => {
            if (++calls <= 2) real(message, transfer);
          }) as MessagePort['postMessage'];
        }
        worker(port);
      },
      // The first port's tab is gone with its worker (clients.get no longer finds it).
      (n) => (n === 1 ? 'closed-tab' : 'page-1'),
    );
    // The handle deadline and the heartbeat never come within the test: only the ping beside the
    // call can end it (broken, the test hangs until its timeout), and ends it with a 503, not a 504.
    const timing = { ...fast, handleMs: NEVER_MS, heartbeatMs: NEVER_MS };
    links = new EngineLinks(clientsOf(p.client), timing);
    expect((await forwardToEngine(get('/v1/models'), 'page-1', links, timing)).status).toBe(200);

    const res = await forwardToEngine(get('/v1/models'), 'page-1', links, timing);
    expect(await errorOf(res)).toEqual({ status: 503, code: 'engine_unavailable', type: 'server_error' });
    expect(res.headers.get('x-should-retry')).toBe('true');

    expect((await forwardToEngine(get('/v1/models'), 'page-1', links, timing)).status).toBe(200);
    expect(p.asked).toEqual([{ type: 'need-port' }, { type: 'need-port' }]);
  });

  it('answers 503 engine_version_mismatch to a worker of another deploy', async () => {
    let links!: EngineLinks;
    const p = page(
      () => links,
      engineWorker(async () => json({}), { ping: async () => ({ protocol: 999 }) }),
    );
    links = new EngineLinks(clientsOf(p.client), fast);
    const res = await forwardToEngine(get('/v1/models'), 'page-1', links, fast);
    expect(await errorOf(res)).toMatchObject({ status: 503, code: 'engine_version_mismatch' });
  });

  it('answers 504 when the engine takes too long, and cancels the body that arrives late', async () => {
    let cancelled = false;
    let aborted = false;
    const late = new ReadableStream({
      cancel: () => {
        cancelled = true;
      },
    });
    // The engine answers only once the 504 is out (a gate, not a longer timer a loaded machine could
    // fire first); the heartbeat never comes, so the handle deadline is the one bound that can end it.
    let answer: (res: Response) => void = () => {};
    const timing = { ...fast, heartbeatMs: NEVER_MS };
    let links!: EngineLinks;
    const p = page(
      () => links,
      engineWorker(
        (req) =>
          new Promise((resolve) => {
            req.signal.addEventListener('abort', () => {
              aborted = true;
            });
            answer = resolve;
          }),
      ),
    );
    links = new EngineLinks(clientsOf(p.client), timing);
    const res = await forwardToEngine(
      new Request('http://app.test/v1/responses', { method: 'POST', body: '{}' }),
      'page-1',
      links,
      timing,
    );
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status).toBe(504);
    expect(body.error).toMatchObject({
      code: 'timeout',
      message: `The engine did not answer within ${fast.handleMs} ms.`,
    });
    await expect.poll(() => aborted).toBe(true);
    answer(new Response(late));
    await expect.poll(() => cancelled).toBe(true);
  });

  it('answers 503 when the engine worker vanishes mid-request', async () => {
    // A worker whose tab closed: nothing answers any more, and no close event says so.
    let gone = false;
    const silentOnceGone = async () => (gone ? new Promise<never>(() => {}) : { protocol: 1 });
    let links!: EngineLinks;
    const p = page(
      () => links,
      engineWorker(() => new Promise<Response>(() => {}), { ping: silentOnceGone }),
    );
    // No handle deadline within the test: the heartbeat's missed ping is what ends the call. The tab
    // goes with its worker: clients.get no longer finds it.
    const timing = { ...fast, handleMs: NEVER_MS };
    links = new EngineLinks(
      { get: async (id) => (id === 'page-1' && !gone ? p.client : undefined), matchAll: async () => [] },
      timing,
    );
    const pending = forwardToEngine(get('/v1/models'), 'page-1', links, timing);
    await expect.poll(() => p.asked.length).toBe(1);
    gone = true;
    const res = await pending;
    expect(await errorOf(res)).toMatchObject({ status: 503, code: 'engine_unavailable' });
  });
});
