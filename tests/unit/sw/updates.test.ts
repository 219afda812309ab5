/**
 * Issue 46: a new build's service worker waits for a page's `applyUpdate()` (workbox-window's
 * `messageSkipWaiting()`, `{ type: 'SKIP_WAITING' }`) unless it was built to take over at once; it
 * claims the open pages on activate either way.
 */
import { describe, expect, it } from 'vitest';
import { type IntabScope, installIntab } from '../../../sw/install-intab';

type Listener = (event: unknown) => void;

function scope() {
  const listeners = new Map<string, Listener[]>();
  const calls = { skipWaiting: 0, claim: 0 };
  const waited: Promise<unknown>[] = [];
  const s = {
    location: { origin: 'https://app.test' },
    clients: {
      get: async () => undefined,
      matchAll: async () => [],
      claim: async () => {
        calls.claim += 1;
      },
    },
    skipWaiting: async () => {
      calls.skipWaiting += 1;
    },
    addEventListener(type: string, listener: Listener) {
      listeners.set(type, [...(listeners.get(type) ?? []), listener]);
    },
  } as unknown as IntabScope;
  const dispatch = async (type: string, extra: object = {}) => {
    for (const l of listeners.get(type) ?? [])
      l({ ports: [], source: null, ...extra, waitUntil: (p: Promise<unknown>) => waited.push(p) });
    await Promise.all(waited.splice(0));
  };
  return { s, calls, dispatch };
}

describe('installIntab updates', () => {
  it('waits by default: install skips no wait, SKIP_WAITING does, activate claims', async () => {
    const { s, calls, dispatch } = scope();
    installIntab(s);
    await dispatch('install');
    expect(calls.skipWaiting).toBe(0);
    await dispatch('message', { data: { type: 'something-else' } });
    expect(calls.skipWaiting).toBe(0);
    await dispatch('message', { data: { type: 'SKIP_WAITING' } });
    expect(calls.skipWaiting).toBe(1);
    await dispatch('activate');
    expect(calls.claim).toBe(1);
  });

  it("takes over at install with updates: 'auto'", async () => {
    const { s, calls, dispatch } = scope();
    installIntab(s, { updates: 'auto' });
    await dispatch('install');
    expect(calls.skipWaiting).toBe(1);
  });

  it('leaves updates to the app with claim: false', async () => {
    const { s, calls, dispatch } = scope();
    installIntab(s, { claim: false });
    await dispatch('install');
    await dispatch('message', { data: { type: 'SKIP_WAITING' } });
    await dispatch('activate');
    expect(calls).toEqual({ skipWaiting: 0, claim: 0 });
  });
});
