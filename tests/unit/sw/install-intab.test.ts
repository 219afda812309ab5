/**
 * `installIntab(self, { rootAliases })` on a fake service worker scope: `/v1/*` is always intab's,
 * the routes without `/v1` only when asked (they may be the app's own pages), and an alias goes
 * through the same guard and body cap as `/v1` before any engine is asked.
 */
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { createResponsesServer } from '../../../src/core';
import { DEFAULT_MAX_BODY_BYTES } from '../../../src/core/http/capped-read';
import { ScriptedEngine } from '../../../src/engine/scripted/scripted-engine';
import { MemoryStore } from '../../../src/store/memory-store';
import { createEngineApi } from '../../../src/worker/engine-api';
import type { ClientLike } from '../../../sw/engine-links';
import { type IntabScope, installIntab } from '../../../sw/install-intab';

const ORIGIN = 'https://app.test';

const open: MessagePort[] = [];
afterEach(() => {
  for (const port of open.splice(0)) port.close();
});

type Listener = (event: unknown) => void;

/**
 * A service worker scope with one page, `page-1`, which answers `need-port` as intab's client does:
 * it starts an engine worker (the real core over `scripted`) and posts its port to the scope.
 */
function fakeScope() {
  const listeners = new Map<string, Listener[]>();
  const dispatch = (type: string, event: unknown) => {
    for (const l of listeners.get(type) ?? []) l(event);
  };
  const server = createResponsesServer({ engine: new ScriptedEngine(), store: new MemoryStore() });
  let asked = 0;
  const page: ClientLike = {
    type: 'window',
    postMessage() {
      asked += 1;
      const { port1, port2 } = new MessageChannel();
      open.push(port1, port2);
      const api = createEngineApi({
        server: async () => server,
        load: async () => {},
        gpuStatus: async () => ({ available: false, adapter: null, features: [] }),
      });
      Comlink.expose(api, port1);
      dispatch('message', {
        data: { type: 'port', protocol: 1 },
        source: { id: 'page-1' },
        ports: [port2],
        waitUntil() {},
      });
    },
  };
  const scope = {
    location: { origin: ORIGIN },
    clients: {
      get: async (id: string) => (id === 'page-1' ? page : undefined),
      matchAll: async () => [page],
      claim: async () => {},
    },
    skipWaiting: async () => {},
    addEventListener(type: string, listener: Listener) {
      listeners.set(type, [...(listeners.get(type) ?? []), listener]);
    },
  } as IntabScope;

  /** Dispatches a fetch event; resolves with intab's answer, or null when intab left it alone. */
  const fetch = (request: Request): Promise<Response | null> => {
    let answer: Promise<Response> | null = null;
    dispatch('fetch', { request, clientId: 'page-1', respondWith: (r: Promise<Response>) => (answer = r) });
    return answer ?? Promise.resolve(null);
  };
  return { scope, fetch, asked: () => asked };
}

const at = (path: string, init?: RequestInit) => new Request(`${ORIGIN}${path}`, init);

describe('installIntab route matching', () => {
  it('answers /v1/* only by default, and the routes without /v1 with rootAliases', () => {
    const plain = installIntab(fakeScope().scope);
    const aliased = installIntab(fakeScope().scope, { rootAliases: true });
    expect([plain.rootAliases, aliased.rootAliases]).toEqual([false, true]);
    const paths = [
      '/v1/models',
      '/models',
      '/responses/resp_1',
      '/chat/completions',
      '/embeddings',
      '/conversations',
    ];
    expect(paths.map((p) => plain.handles(at(p)))).toEqual([true, false, false, false, false, false]);
    expect(paths.map((p) => aliased.handles(at(p)))).toEqual([true, true, true, true, true, true]);
    for (const other of ['/models-gallery', '/docs/responses', '/', '/index.html']) {
      expect(aliased.handles(at(other))).toBe(false);
    }
    expect(aliased.handles(new Request('https://elsewhere.test/chat/completions'))).toBe(false);
  });

  it('forwards an alias to the engine worker, and leaves it to the app without the option', async () => {
    const app = fakeScope();
    installIntab(app.scope);
    expect(await app.fetch(at('/models'))).toBeNull();

    const aliased = fakeScope();
    installIntab(aliased.scope, { rootAliases: true });
    const res = await aliased.fetch(
      at('/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'via alias' }] }),
      }),
    );
    expect(res?.status).toBe(200);
    expect((await (res as Response).json()).choices[0].message.content).toBe('You said: via alias');
  });

  it('refuses a cross-site alias request and an oversized alias body before asking for an engine', async () => {
    const { scope, fetch, asked } = fakeScope();
    installIntab(scope, { rootAliases: true });
    const crossSite = await fetch(
      at('/responses', { method: 'POST', headers: { origin: 'https://evil.test' }, body: '{}' }),
    );
    expect(crossSite?.status).toBe(403);
    expect((await (crossSite as Response).json()).error.code).toBe('cross_site_request');
    const huge = await fetch(
      at('/embeddings', { method: 'POST', body: new Uint8Array(DEFAULT_MAX_BODY_BYTES + 1) }),
    );
    expect(huge?.status).toBe(413);
    expect(asked()).toBe(0);
  });
});
