/**
 * Counts the bytes of the HTTP bodies the engine worker receives, so a model load can be timed on
 * silence of the network rather than on web-llm's progress reports. web-llm reports progress once
 * per weight shard (tens of MB each): on a slow link a healthy download sends no report for minutes,
 * while its bytes keep arriving. web-llm takes no fetch of ours, so the meter wraps the worker's own
 * `fetch` (web-llm's IndexedDB cache and tvmjs fetch through it) and `Cache.prototype.add` (its
 * default Cache API backend downloads with `cache.add`, whose body JavaScript never sees otherwise).
 */

/** Where bytes are counted: the engine worker's global scope, or a fake one in tests. */
export interface MeteredScope {
  fetch: typeof fetch;
  Cache?: { prototype: Pick<Cache, 'add' | 'put'> };
}

/** Hears of the bytes received while it watches. */
export interface ByteMeter {
  /** Calls `onBytes(n)` for every chunk of `n` bytes received until the returned function is called. */
  watch(onBytes: (bytes: number) => void): () => void;
}

const INSTALLED = Symbol.for('intab.byteMeter');

/**
 * Installs the meter on `scope` once (a second call returns the first meter). While nothing watches,
 * requests go to the original functions untouched.
 *
 * @example
 * const meter = installByteMeter(globalThis);
 * const stop = meter.watch(() => bump());
 * await mlc.reload(modelId);
 * stop();
 */
export function installByteMeter(scope: MeteredScope): ByteMeter {
  const marked = scope as MeteredScope & { [INSTALLED]?: ByteMeter };
  const existing = marked[INSTALLED];
  if (existing) return existing;
  const listeners = new Set<(bytes: number) => void>();
  const heard = (bytes: number): void => {
    for (const l of listeners) l(bytes);
  };
  const plainFetch = scope.fetch;
  scope.fetch = async (input, init) => {
    const res = await plainFetch.call(globalThis, input, init);
    return listeners.size === 0 ? res : counted(res, heard);
  };
  const proto = scope.Cache?.prototype;
  if (proto) {
    const plainAdd = proto.add;
    proto.add = async function add(this: Cache, request: RequestInfo | URL): Promise<void> {
      if (listeners.size === 0) return plainAdd.call(this, request);
      // What `add` does (fetch, refuse a failed answer, put), with the body counted on its way in.
      const req = new Request(request);
      const res = await plainFetch.call(globalThis, req);
      if (!res.ok) throw new TypeError(`Failed to execute 'add' on 'Cache': Request failed (${res.status})`);
      await this.put(req, counted(res, heard));
    };
  }
  const meter: ByteMeter = {
    watch(onBytes) {
      listeners.add(onBytes);
      return () => listeners.delete(onBytes);
    },
  };
  marked[INSTALLED] = meter;
  return meter;
}

/** The same response, its body counted chunk by chunk as whoever reads it reads it. */
function counted(res: Response, heard: (bytes: number) => void): Response {
  if (!res.body) return res;
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        heard(chunk.byteLength);
        controller.enqueue(chunk);
      },
    }),
  );
  const copy = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  // A constructed Response has no URL; readers that resolve relative paths against it need it.
  Object.defineProperty(copy, 'url', { value: res.url });
  return copy;
}
