/**
 * The service worker when the leading tab changes (DESIGN §5): a new leader's port replaces the old
 * leader's link, and whatever was in flight on the old one ends with a 503 at once instead of
 * hanging on a worker whose tab is gone.
 */
import * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { createEngineApi } from '../../../src/worker/engine-api';
import { type ClientsLike, EngineLinks } from '../../../sw/engine-links';
import { forwardToEngine } from '../../../sw/forward';
import type { SwTiming } from '../../../sw/timing';
import { messageChannels } from '../../helpers/closing-channels';

/**
 * Past any test's timeout: a bound this long never fires here, so a call that ends at all was ended
 * by the leader change (no wall-clock margin to break on a loaded machine; broken, the test hangs
 * until its timeout and fails).
 */
const NEVER_MS = 600_000;

/** Every bound that could end a call past the test's timeout: only the leader change can end one. */
const timing: SwTiming = {
  pingMs: NEVER_MS,
  portWaitMs: NEVER_MS,
  handleMs: NEVER_MS,
  heartbeatMs: NEVER_MS,
  heartbeatPingMs: NEVER_MS,
};

const channel = messageChannels();

const noClients: ClientsLike = { get: async () => undefined, matchAll: async () => [] };

/** A port into an engine worker whose core answers with `fetch`. */
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

/** A port whose far end is not listening: a worker in a tab that closed, as the service worker sees it. */
function deadPort(): MessagePort {
  return channel().port2;
}

const get = (path: string) => new Request(`http://app.test${path}`);

describe('EngineLinks when the leader changes', () => {
  it("ends a call in flight on the old leader's link as soon as a new leader hands a port", async () => {
    const links = new EngineLinks(noClients, timing);
    links.adopt(
      workerPort(() => new Promise<Response>(() => {})),
      'tab-a',
      { leader: true },
    );
    const pending = forwardToEngine(get('/v1/responses/resp_1'), 'tab-b', links, timing);
    await new Promise((r) => setTimeout(r, 50));
    links.adopt(
      workerPort(async () => Response.json({ ok: true })),
      'tab-b',
      { leader: true },
    );
    const res = await pending;
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'another tab runs it now',
    );
    // The next request goes to the new leader.
    expect(await (await forwardToEngine(get('/v1/models'), 'tab-a', links, timing)).json()).toEqual({
      ok: true,
    });
  });

  it("errors a body still streaming from the old leader's worker instead of leaving it pending", async () => {
    const links = new EngineLinks(noClients, timing);
    // A body that sends one chunk and then never another: its tab closed mid-stream.
    const stalled = () =>
      new Response(
        new ReadableStream({
          start: (c) => c.enqueue(new TextEncoder().encode('data: 1\n\n')),
        }),
        { headers: { 'content-type': 'text/event-stream; charset=utf-8' } },
      );
    links.adopt(
      workerPort(async () => stalled()),
      'tab-a',
      { leader: true },
    );
    const res = await forwardToEngine(get('/v1/responses/resp_1?stream=true'), 'tab-a', links, timing);
    const reader = res.body?.getReader();
    expect((await reader?.read())?.done).toBe(false);
    const next = reader?.read();
    links.adopt(
      workerPort(async () => Response.json({})),
      'tab-b',
      { leader: true },
    );
    await expect(next).rejects.toMatchObject({ status: 503 });
  });

  it('stops waiting on a ping to a dead link once a new leader hands a port', async () => {
    const links = new EngineLinks(noClients, timing);
    links.adopt(deadPort(), 'tab-a', { leader: true });
    const pending = forwardToEngine(get('/v1/models'), 'tab-b', links, timing);
    await new Promise((r) => setTimeout(r, 50));
    links.adopt(
      workerPort(async () => Response.json({ served: 'tab-b' })),
      'tab-b',
      { leader: true },
    );
    // The ping to the dead link has no deadline within the test: only the new leader ends it.
    expect(await (await pending).json()).toEqual({ served: 'tab-b' });
  });

  it("keeps other tabs' links when a port comes from a tab that does not lead (no Web Locks)", async () => {
    const links = new EngineLinks(noClients, timing);
    links.adopt(
      workerPort(async () => Response.json({ served: 'tab-a' })),
      'tab-a',
    );
    links.adopt(
      workerPort(async () => Response.json({ served: 'tab-b' })),
      'tab-b',
    );
    expect(await (await forwardToEngine(get('/v1/models'), 'tab-a', links, timing)).json()).toEqual({
      served: 'tab-a',
    });
  });
});
