/**
 * An in-memory `CacheStorage` for the service worker's caching code in Node (which has none): keyed
 * by URL, as Cache Storage matches a GET by default, with bodies kept as bytes so a hit reads again.
 */

class MemoryCache {
  readonly entries = new Map<string, { body: Uint8Array; init: ResponseInit }>();

  async match(request: RequestInfo | URL): Promise<Response | undefined> {
    const hit = this.entries.get(urlOf(request));
    return hit ? new Response(hit.body.slice(), hit.init) : undefined;
  }

  async put(request: RequestInfo | URL, response: Response): Promise<void> {
    const body = new Uint8Array(await response.arrayBuffer());
    const init = { status: response.status, statusText: response.statusText, headers: [...response.headers] };
    this.entries.set(urlOf(request), { body, init });
  }

  async keys(): Promise<Request[]> {
    return [...this.entries.keys()].map((u) => new Request(u));
  }

  async delete(request: RequestInfo | URL): Promise<boolean> {
    return this.entries.delete(urlOf(request));
  }
}

function urlOf(request: RequestInfo | URL): string {
  return typeof request === 'string' ? request : request instanceof URL ? request.href : request.url;
}

/** The fake storage; `names()` and `paths(name)` say what it holds. */
export class MemoryCacheStorage {
  readonly caches = new Map<string, MemoryCache>();

  async open(name: string): Promise<MemoryCache> {
    const cache = this.caches.get(name) ?? new MemoryCache();
    this.caches.set(name, cache);
    return cache;
  }

  async match(request: RequestInfo | URL): Promise<Response | undefined> {
    for (const cache of this.caches.values()) {
      const hit = await cache.match(request);
      if (hit) return hit;
    }
    return undefined;
  }

  async keys(): Promise<string[]> {
    return [...this.caches.keys()];
  }

  async has(name: string): Promise<boolean> {
    return this.caches.has(name);
  }

  async delete(name: string): Promise<boolean> {
    return this.caches.delete(name);
  }

  /** The URL paths (with their query) that cache `name` holds. */
  paths(name: string): string[] {
    return [...(this.caches.get(name)?.entries.keys() ?? [])].map((u) => {
      const url = new URL(u);
      return url.pathname + url.search;
    });
  }
}
