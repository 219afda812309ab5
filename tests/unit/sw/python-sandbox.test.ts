/**
 * The service worker serves the Python sandbox's script with the sandbox's CSP (issue 26, security
 * point 2): only a same-origin GET of exactly `/intab-python/sandbox.js` is answered, with the body
 * and headers the network gave plus the policy, which replaces any the host sent.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sandboxCsp } from '../../../src/sandbox';
import { routePythonSandbox } from '../../../sw/python-sandbox';
import { MemoryCacheStorage } from '../../helpers/cache-storage';

type Listener = (event: { request: Request; respondWith(r: Promise<Response>): void }) => void;

function scope() {
  let listener: Listener | null = null;
  routePythonSandbox({
    location: { origin: 'https://app.test' },
    addEventListener: (_type, l) => {
      listener = l;
    },
  });
  /** What the listener answered for `request`, or null when it left it alone. */
  return (request: Request): Promise<Response> | null => {
    let answer: Promise<Response> | null = null;
    listener?.({ request, respondWith: (r) => (answer = r) });
    return answer;
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('routePythonSandbox', () => {
  it('adds the sandbox CSP to the script, replacing the host’s, keeping body, status and other headers', async () => {
    const upstream = vi.fn(
      async () =>
        new Response('export {}', {
          headers: {
            'content-type': 'text/javascript',
            'content-security-policy': "script-src 'unsafe-eval'",
            'cross-origin-embedder-policy': 'require-corp',
          },
        }),
    );
    vi.stubGlobal('fetch', upstream);
    vi.stubGlobal('caches', new MemoryCacheStorage());
    const res = await scope()(new Request('https://app.test/intab-python/sandbox.js'));
    expect(res).not.toBeNull();
    const r = res as Response;
    expect(r.headers.get('content-security-policy')).toBe(sandboxCsp('https://app.test'));
    expect(sandboxCsp('https://app.test')).toBe(
      "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src https://app.test/intab-python/; worker-src 'none'",
    );
    expect(r.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(await r.text()).toBe('export {}');
  });

  it('leaves every other request alone (a query on the script still gets the policy: it only ever adds one)', async () => {
    vi.stubGlobal('fetch', async () => new Response(''));
    vi.stubGlobal('caches', new MemoryCacheStorage());
    const answer = scope();
    expect(await answer(new Request('https://app.test/intab-python/sandbox.js?v=2'))).toBeInstanceOf(
      Response,
    );
    for (const req of [
      new Request('https://app.test/intab-python/pyodide.mjs'),
      new Request('https://other.test/intab-python/sandbox.js'),
      new Request('https://app.test/intab-python/sandbox.js', { method: 'POST', body: 'x' }),
      new Request('https://app.test/assets/sandbox.js'),
    ])
      expect(answer(req), req.url).toBeNull();
  });

  it('serves the copy kept online when the network is gone, with the policy', async () => {
    vi.stubGlobal('caches', new MemoryCacheStorage());
    vi.stubGlobal(
      'fetch',
      async () =>
        new Response('export const online = 1;', {
          headers: { etag: '"a"', 'content-type': 'text/javascript' },
        }),
    );
    const answer = scope();
    await answer(new Request('https://app.test/intab-python/sandbox.js'));
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    const offline = (await answer(new Request('https://app.test/intab-python/sandbox.js'))) as Response;
    expect(await offline.text()).toBe('export const online = 1;');
    expect(offline.headers.get('content-security-policy')).toBe(sandboxCsp('https://app.test'));
  });
});
