/**
 * Issue 43: the isolation wrapper rebuilt every response, so one that had followed a redirect lost
 * its final URL, and a same-origin module reached through one (`/redir/mod.js` → 302 →
 * `/real/mod.js`) resolved its `./dep.js` against the request's URL. It now sends the page to the
 * final URL, whose own answer is isolated.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isolate } from '../../../sw/isolation';
import { routeOfflineShell } from '../../../sw/offline-shell';
import { MemoryCacheStorage } from '../../helpers/cache-storage';

type Listener = (event: { request: Request; respondWith(r: Promise<Response>): void }) => void;

/** A response as `fetch` gives one after following redirects to `finalUrl`. */
function redirected(body: string, finalUrl: string): Response {
  const response = new Response(body, { headers: { 'content-type': 'text/javascript' } });
  Object.defineProperty(response, 'redirected', { value: true });
  Object.defineProperty(response, 'url', { value: finalUrl });
  return response;
}

afterEach(() => vi.unstubAllGlobals());

describe('isolate, for a response that followed redirects', () => {
  it('redirects to the final URL, whose own fetch is then isolated', async () => {
    vi.stubGlobal('caches', new MemoryCacheStorage());
    const network = vi.fn(async (request: Request) =>
      new URL(request.url).pathname === '/redir/mod.js'
        ? redirected('import "./dep.js";', 'https://app.test/real/mod.js')
        : new Response('import "./dep.js";', { headers: { 'content-type': 'text/javascript' } }),
    );
    vi.stubGlobal('fetch', network);
    let listener: Listener | null = null;
    routeOfflineShell(
      {
        location: { origin: 'https://app.test', href: 'https://app.test/sw.js' },
        addEventListener: (type: string, l: Listener) => {
          if (type === 'fetch') listener = l;
        },
      } as never,
      [],
      { skip: () => false, isolation: 'require-corp' },
    );
    const answer = (url: string): Promise<Response> => {
      let out: Promise<Response> | null = null;
      listener?.({ request: new Request(url), respondWith: (r) => (out = r) });
      if (!out) throw new Error(`no answer for ${url}`);
      return out;
    };
    const first = await answer('https://app.test/redir/mod.js');
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('https://app.test/real/mod.js');
    const real = await answer(first.headers.get('location') as string);
    expect(real.status).toBe(200);
    expect(real.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(await real.text()).toBe('import "./dep.js";');
  });

  it('passes a redirected response through when its headers need nothing, and leaves others as they were', () => {
    const isolated = redirected('x', 'https://app.test/real/mod.js');
    isolated.headers.set('cross-origin-embedder-policy', 'require-corp');
    isolated.headers.set('cross-origin-opener-policy', 'same-origin');
    expect(isolate(isolated, 'require-corp')).toBe(isolated);
    const optedOut = redirected('x', 'https://app.test/real/mod.js');
    expect(isolate(optedOut, false)).toBe(optedOut);
  });
});
