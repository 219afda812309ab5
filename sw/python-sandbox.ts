/**
 * The service worker's part of the Python sandbox: it serves the sandbox worker's script with the
 * sandbox's Content-Security-Policy (a dedicated worker takes its policy from its script's
 * response), so model-written code runs with no eval, no connection outside the Pyodide folder and
 * no nested worker, whatever headers the app's host sends.
 */
import { PYTHON_ASSET_PATH, SANDBOX_SCRIPT, sandboxCsp } from '../src/sandbox/protocol';
import { type FetchScope, routeFetch } from './fetch-route';
import type { IsolationMode } from './isolation';
import { networkFirst } from './lazy-cache';

/**
 * Adds the listener: a same-origin GET of the sandbox script is fetched from the network and
 * answered with the same body and headers, plus the sandbox's CSP.
 *
 * @example
 * routePythonSandbox(self);
 */
export function routePythonSandbox(scope: FetchScope, isolation: IsolationMode = false): void {
  // An isolated engine worker may start only a sandbox that is isolated too.
  routeFetch(scope, isolation, isSandboxRequest, withSandboxCsp);
}

/** Whether `request` is a same-origin GET of the sandbox script (a query included). */
export function isSandboxRequest(request: Request, origin: string): boolean {
  const url = new URL(request.url);
  return (
    url.origin === origin &&
    url.pathname === `${PYTHON_ASSET_PATH}${SANDBOX_SCRIPT}` &&
    request.method === 'GET'
  );
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
