/**
 * Downloads a catalog GGUF into the page's Cache API (cache `intab-gguf`), with progress (bytes,
 * speed, time left) and cancel, so a model is fetched once and found next time, offline too. The
 * CPU engine then gets the cached file as a Blob (`addModel({ files })`), which Chromium keeps on
 * disk. Each way a download can stop (offline, an HTTP error, a cut connection, the storage quota,
 * a cancel) is one {@link DownloadError} with a sentence saying what happened and what to do.
 */

/** The Cache API cache the demo keeps downloaded GGUFs in. */
export const GGUF_CACHE = 'intab-gguf';
/** How often progress is reported, at most (a callback per network chunk would flood the page). */
export const PROGRESS_INTERVAL_MS = 100;
/** A download that delivers nothing for this long has stopped; it is cancelled with a message. */
export const STALL_TIMEOUT_MS = 30_000;

/** Where a download is. */
export interface DownloadProgress {
  loaded: number;
  /** From `Content-Length`, or null when the server does not say. */
  total: number | null;
  /** Average since the start. */
  bytesPerSecond: number;
}

/** Why a download stopped, in one sentence; `kind` lets the caller tell a cancel from a failure. */
export class DownloadError extends Error {
  constructor(
    readonly kind: 'cancelled' | 'offline' | 'http' | 'cut' | 'quota' | 'stalled' | 'busy',
    message: string,
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

const MB = 1 << 20;
const GB = 1 << 30;
const bytesText = (n: number): string =>
  n >= GB ? `${(n / GB).toFixed(2)} GB` : `${(n / MB).toFixed(n >= 10 * MB ? 0 : 1)} MB`;

/**
 * The progress line: bytes, speed and time left.
 *
 * @example
 * describeProgress({ loaded: 300 * 2 ** 20, total: 770 * 2 ** 20, bytesPerSecond: 10 * 2 ** 20 });
 * // '300 MB of 770 MB · 10.0 MB/s · about 47 s left'
 */
export function describeProgress(p: DownloadProgress): string {
  const speed = `${(p.bytesPerSecond / MB).toFixed(1)} MB/s`;
  if (p.total === null) return `${bytesText(p.loaded)} · ${speed}`;
  const left = p.bytesPerSecond > 0 ? (p.total - p.loaded) / p.bytesPerSecond : null;
  const leftText =
    left === null
      ? 'time left unknown'
      : left < 90
        ? `about ${Math.ceil(left)} s left`
        : `about ${Math.ceil(left / 60)} min left`;
  return `${bytesText(p.loaded)} of ${bytesText(p.total)} · ${speed} · ${leftText}`;
}

/**
 * The cached file for `url`, or null.
 * @example
 * const blob = await cachedGguf(model.url);
 */
export async function cachedGguf(url: string): Promise<Blob | null> {
  const hit = await (await caches.open(GGUF_CACHE)).match(url);
  return hit ? hit.blob() : null;
}

/**
 * Downloads `url` into the cache (or finds it there) and answers the file as a Blob.
 *
 * @example
 * const blob = await downloadGguf(url, { signal: ctrl.signal, onProgress: (p) => show(describeProgress(p)) });
 */
export async function downloadGguf(
  url: string,
  opts: { signal: AbortSignal; onProgress: (p: DownloadProgress) => void },
): Promise<Blob> {
  const found = await cachedGguf(url);
  if (found) return found;
  const cache = await caches.open(GGUF_CACHE);
  // A stall aborts the fetch too; `stalled` says which of the two it was.
  const stall = new AbortController();
  const signal = AbortSignal.any([opts.signal, stall.signal]);
  const why = (err: unknown): DownloadError =>
    toDownloadError(err, opts.signal.aborted, stall.signal.aborted);
  let res: Response;
  try {
    res = await fetch(url, { signal });
  } catch (err) {
    throw why(err);
  }
  if (!res.ok || !res.body)
    throw new DownloadError(
      'http',
      `The server answered HTTP ${res.status} for ${url}: the file is not there (or not now). Try again later, or pick another model.`,
    );
  const total = Number(res.headers.get('content-length')) || null;
  const [toCache, toCount] = res.body.tee();
  const put = cache
    .put(url, new Response(toCache, { headers: { 'content-type': 'application/octet-stream' } }))
    .catch((err: unknown) => err);
  const started = performance.now();
  let loaded = 0;
  let lastReport = 0;
  let timer = setTimeout(() => stall.abort(), STALL_TIMEOUT_MS);
  const reader = toCount.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      loaded += value.byteLength;
      clearTimeout(timer);
      timer = setTimeout(() => stall.abort(), STALL_TIMEOUT_MS);
      const now = performance.now();
      if (now - lastReport >= PROGRESS_INTERVAL_MS) {
        lastReport = now;
        opts.onProgress({ loaded, total, bytesPerSecond: loaded / Math.max(0.001, (now - started) / 1000) });
      }
    }
  } catch (err) {
    await put;
    await cache.delete(url);
    throw why(err);
  } finally {
    clearTimeout(timer);
  }
  const stored = await put;
  if (stored !== undefined) {
    await cache.delete(url);
    throw why(stored);
  }
  if (total !== null && loaded < total) {
    await cache.delete(url);
    throw new DownloadError(
      'cut',
      `The download stopped at ${bytesText(loaded)} of ${bytesText(total)}: the connection was cut. Try again.`,
    );
  }
  opts.onProgress({
    loaded,
    total,
    bytesPerSecond: loaded / Math.max(0.001, (performance.now() - started) / 1000),
  });
  const blob = await cachedGguf(url);
  if (!blob)
    throw new DownloadError('quota', 'The file could not be kept: the browser dropped it from its cache.');
  return blob;
}

function toDownloadError(err: unknown, cancelled: boolean, stalled: boolean): DownloadError {
  if (err instanceof DownloadError) return err;
  if (cancelled) return new DownloadError('cancelled', 'Download cancelled; nothing was kept.');
  if (stalled)
    return new DownloadError(
      'stalled',
      `The download stopped: nothing arrived for ${STALL_TIMEOUT_MS / 1000} s. Check the connection and try again.`,
    );
  if (err instanceof DOMException && err.name === 'QuotaExceededError')
    return new DownloadError(
      'quota',
      'Not enough storage for this model: delete a cached model (below) or free space, then try again.',
    );
  const message = err instanceof Error ? err.message : String(err);
  return new DownloadError(
    navigator.onLine ? 'cut' : 'offline',
    navigator.onLine
      ? `The download stopped (${message}). Check the connection and try again.`
      : 'The download stopped: this browser is offline. Reconnect and try again.',
  );
}
