/**
 * Turns a Web Worker's `error` event into one error that says which script failed and why. A module
 * worker whose script is missing, is served as HTML, or has an import that fails fires a bare
 * `Event` (no message, no URL, no status; Chromium 156), so the cause is found by fetching the
 * script again.
 */

/**
 * Describes why the worker at `url` failed, from its `error` event.
 *
 * @example
 * worker.addEventListener('error', async (event) => {
 *   const err = await describeWorkerFailure(url, event);
 *   // → Error: intab's engine worker (http://localhost:8080/engine-worker.js) failed to start: HTTP 404 Not Found …
 * });
 */
export async function describeWorkerFailure(
  url: string,
  event: Event,
  fetchScript: (url: string) => Promise<Response> = (u) => fetch(u, { cache: 'no-store' }),
): Promise<Error> {
  const cause = isErrorEvent(event) ? thrownInWorker(event) : await whyNotLoaded(url, fetchScript);
  return new Error(`intab's engine worker (${url}) failed to start: ${cause}`);
}

function isErrorEvent(event: Event): event is ErrorEvent {
  return typeof (event as ErrorEvent).message === 'string' && (event as ErrorEvent).message !== '';
}

/** The script ran and threw: the event carries the message and where. */
function thrownInWorker(event: ErrorEvent): string {
  const where = event.filename ? ` (${event.filename}:${event.lineno}:${event.colno})` : '';
  return `${event.message}${where}`;
}

const HINT =
  'Serve the script built from intab/engine-worker there, or point startIntab({ workerUrl }) at it (see the README, "Without Vite").';

/** No message: the script did not load. Fetching it again tells a missing file from a wrong one. */
async function whyNotLoaded(url: string, fetchScript: (url: string) => Promise<Response>): Promise<string> {
  let res: Response;
  try {
    res = await fetchScript(url);
  } catch (err) {
    return `the script could not be fetched (${err instanceof Error ? err.message : String(err)}). ${HINT}`;
  }
  await res.body?.cancel().catch(() => {});
  if (!res.ok) return `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}. ${HINT}`;
  const type = res.headers.get('content-type') ?? '';
  if (!/javascript|ecmascript/i.test(type)) {
    return `it is served as '${type || 'no content type'}', not JavaScript. ${HINT}`;
  }
  return 'the script loaded but an import in it failed (a bare import its bundler left unresolved, or a missing chunk); the browser console names it.';
}
