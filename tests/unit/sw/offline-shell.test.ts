/**
 * Issue 35: intab's own service worker, offline by default and isolating on any host. The shell
 * precaches its manifest at install, answers the manifest's files and navigations from it (offline
 * too), leaves what intab's own listeners serve alone, and adds COOP/COEP to what it serves.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isolate } from '../../../sw/isolation';
import { routeOfflineShell, type ShellOptions } from '../../../sw/offline-shell';
import { MemoryCacheStorage } from '../../helpers/cache-storage';

type Listener = (event: {
  request: Request;
  respondWith(r: Promise<Response>): void;
  waitUntil(p: Promise<unknown>): void;
}) => void;

function shell(manifest: { url: string; revision: string | null }[], opts: Partial<ShellOptions> = {}) {
  const listeners = new Map<string, Listener>();
  routeOfflineShell(
    {
      location: { origin: 'https://app.test', href: 'https://app.test/sw.js' },
      addEventListener: (type: string, l: Listener) => listeners.set(type, l),
    } as never,
    manifest,
    { skip: () => false, isolation: 'require-corp', ...opts },
  );
  const run = async (type: string) => {
    let work: Promise<unknown> = Promise.resolve();
    listeners.get(type)?.({
      request: new Request('https://app.test/'),
      respondWith: () => {},
      waitUntil: (p) => (work = p),
    });
    await work;
  };
  const answer = (request: Request): Promise<Response> | null => {
    let out: Promise<Response> | null = null;
    listeners.get('fetch')?.({ request, respondWith: (r) => (out = r), waitUntil: () => {} });
    return out;
  };
  return { install: () => run('install'), activate: () => run('activate'), answer };
}

const navigation = (url: string) => {
  const r = new Request(url);
  Object.defineProperty(r, 'mode', { value: 'navigate' });
  return r;
};

afterEach(() => vi.unstubAllGlobals());

describe('routeOfflineShell', () => {
  it('precaches the manifest at install and serves it, navigations included, offline, isolated', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    vi.stubGlobal('fetch', async (url: string) => new Response(`body of ${new URL(url).pathname}`));
    const sw = shell([
      { url: 'index.html', revision: 'r1' },
      { url: 'assets/index-a1.js', revision: null },
    ]);
    await sw.install();
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    const page = (await sw.answer(navigation('https://app.test/some/route?x=1'))) as Response;
    expect(await page.text()).toBe('body of /index.html');
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(await (await sw.answer(new Request('https://app.test/assets/index-a1.js')))?.text()).toBe(
      'body of /assets/index-a1.js',
    );
  });

  it('drops the previous deploy’s shell on activate, reusing its unchanged hashed files', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    const network = vi.fn(async (url: string) => new Response(`body of ${new URL(url).pathname}`));
    vi.stubGlobal('fetch', network);
    await shell([
      { url: 'assets/a-1.js', revision: null },
      { url: 'index.html', revision: 'r1' },
    ]).install();
    const next = shell([
      { url: 'assets/a-1.js', revision: null },
      { url: 'index.html', revision: 'r2' },
    ]);
    await next.install();
    await next.activate();
    expect(await storage.keys()).toHaveLength(1);
    // The hashed file came from the old shell; only the changed index.html was fetched again.
    expect(network.mock.calls.map(([u]) => new URL(u).pathname)).toEqual([
      '/assets/a-1.js',
      '/index.html',
      '/index.html',
    ]);
  });

  it('isolates what it does not hold by fetching it, and leaves intab’s own requests alone', async () => {
    vi.stubGlobal('caches', new MemoryCacheStorage());
    vi.stubGlobal('fetch', async () => new Response('from the host'));
    const sw = shell([], { skip: (r) => r.url.includes('/v1/') });
    const res = (await sw.answer(new Request('https://app.test/test-models/tiny.gguf'))) as Response;
    expect(res.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(sw.answer(new Request('https://app.test/v1/models'))).toBeNull();
    expect(sw.answer(new Request('https://cdn.test/lib.js'))).toBeNull();
    expect(sw.answer(new Request('https://app.test/x', { method: 'POST', body: 'x' }))).toBeNull();
    // Opted out, and nothing precached: every request goes to the network untouched.
    expect(shell([], { isolation: false }).answer(new Request('https://app.test/x.js'))).toBeNull();
  });
});

describe('routeOfflineShell’s navigations (issue 43)', () => {
  const failed = async () => {
    throw new TypeError('Failed to fetch');
  };
  async function installed(opts: Partial<ShellOptions> = {}) {
    vi.stubGlobal('caches', new MemoryCacheStorage());
    vi.stubGlobal('fetch', async (url: string) => new Response(`body of ${new URL(url).pathname}`));
    const sw = shell(
      [
        { url: 'index.html', revision: 'r1' },
        { url: 'about.html', revision: 'r1' },
      ],
      opts,
    );
    await sw.install();
    return sw;
  }
  const server = vi.fn(async (r: Request) => new Response(`server: ${new URL(r.url).pathname}`));

  it('sends a navigation outside the precache to the server while online: the app’s API, a file, a route', async () => {
    const sw = await installed();
    vi.stubGlobal('fetch', server);
    for (const path of ['/api/logout', '/models/tiny.gguf', '/some/route'])
      expect(await (await sw.answer(navigation(`https://app.test${path}`)))?.text()).toBe(`server: ${path}`);
    // The precache's own pages stay cache first: the root, a clean URL.
    server.mockClear();
    expect(await (await sw.answer(navigation('https://app.test/')))?.text()).toBe('body of /index.html');
    expect(await (await sw.answer(navigation('https://app.test/about')))?.text()).toBe('body of /about.html');
    expect(server).not.toHaveBeenCalled();
  });

  it('answers the shell only when the network fails, and never for a file’s URL or a denylisted one', async () => {
    const sw = await installed({ navigateFallbackDenylist: [/^\/api\//] });
    vi.stubGlobal('fetch', failed);
    expect(await (await sw.answer(navigation('https://app.test/some/route?x=1')))?.text()).toBe(
      'body of /index.html',
    );
    for (const path of ['/models/tiny.gguf', '/docs/report.pdf?dl=1', '/v1/models', '/api/logout'])
      await expect(sw.answer(navigation(`https://app.test${path}`)), path).rejects.toThrow('Failed to fetch');
    expect(await (await sw.answer(navigation('https://app.test/guide.html')))?.text()).toBe(
      'body of /index.html',
    );
  });

  it('answers the app’s allowlisted routes with the shell at once, unless the denylist takes them', async () => {
    const sw = await installed({
      navigateFallbackAllowlist: [/^\/chat\//, /^\/u\//],
      navigateFallbackDenylist: [/^\/chat\/export/],
    });
    vi.stubGlobal('fetch', server);
    server.mockClear();
    expect(await (await sw.answer(navigation('https://app.test/chat/123')))?.text()).toBe(
      'body of /index.html',
    );
    expect(await (await sw.answer(navigation('https://app.test/u/jane.doe')))?.text()).toBe(
      'body of /index.html',
    );
    expect(server).not.toHaveBeenCalled();
    expect(await (await sw.answer(navigation('https://app.test/chat/export')))?.text()).toBe(
      'server: /chat/export',
    );
  });
});

describe('isolate', () => {
  it('adds COOP and COEP where the host set none, and keeps what it did set', async () => {
    const plain = isolate(
      new Response('x', { status: 201, headers: { 'content-type': 'text/plain' } }),
      'credentialless',
    );
    expect([plain.status, plain.headers.get('content-type'), await plain.text()]).toEqual([
      201,
      'text/plain',
      'x',
    ]);
    expect(plain.headers.get('cross-origin-embedder-policy')).toBe('credentialless');
    const own = isolate(
      new Response('x', { headers: { 'cross-origin-embedder-policy': 'unsafe-none' } }),
      'require-corp',
    );
    expect(own.headers.get('cross-origin-embedder-policy')).toBe('unsafe-none');
    expect(own.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(isolate(new Response(null, { status: 204 }), 'require-corp').status).toBe(204);
    const untouched = new Response('x');
    expect(isolate(untouched, false)).toBe(untouched);
  });
});
