/**
 * The service worker's part of the Python sandbox: it serves the sandbox worker's script with the
 * sandbox's Content-Security-Policy (a dedicated worker takes its policy from its script's
 * response), so model-written code runs with no eval, no connection outside the Pyodide folder and
 * no nested worker, whatever headers the app's host sends.
 */
import { PYTHON_ASSET_PATH, SANDBOX_SCRIPT, sandboxCsp } from '../src/sandbox/protocol';
import { networkFirst } from './lazy-cache';

/** A fetch listener's event, as much as this uses. */
interface FetchEventLike {
  request: Request;
  respondWith(r: Promise<Response>): void;
}

/**
 * Adds the listener: a same-origin GET of the sandbox script is fetched from the network and
 * answered with the same body and headers, plus the sandbox's CSP.
 *
 * @example
 * routePythonSandbox(self);
 */
export function routePythonSandbox(scope: {
  readonly location: { readonly origin: string };
  addEventListener(type: 'fetch', listener: (event: FetchEventLike) => void): void;
}): void {
  const path = `${PYTHON_ASSET_PATH}${SANDBOX_SCRIPT}`;
  scope.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    if (url.origin !== scope.location.origin || url.pathname !== path || event.request.method !== 'GET')
      return;
    event.respondWith(withSandboxCsp(event.request, scope.location.origin));
  });
}

/**
 * The script from the network (offline, the copy kept the last time) with the CSP set: any policy
 * the host sent is replaced, not merged.
 */
async function withSandboxCsp(request: Request, origin: string): Promise<Response> {
  const upstream = await networkFirst(
    new Request(request.url, { credentials: 'same-origin', cache: 'no-cache' }),
  );
  const headers = new Headers(upstream.headers);
  headers.set('content-security-policy', sandboxCsp(origin));
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers });
}
