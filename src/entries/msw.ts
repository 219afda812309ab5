/**
 * `intab/msw`: request handlers for msw, so an app's own tests (in Node or with msw in a browser)
 * get `/v1/*` answered by intab's core with the `scripted` model: the same JSON, SSE and errors the
 * app sees in the tab, with no service worker and no GPU.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { intabHandlers } from 'intab/msw';
 * const server = setupServer(...intabHandlers({ baseUrl: 'http://localhost:5173' }));
 * server.listen();
 */
import { http, ws } from 'msw';
import { createResponsesServer, type ResponsesServerOptions, ResponsesSocketSession } from '../core';
import { ScriptedEngine } from '../engine';
import { MemoryStore } from '../store';

export interface IntabHandlerOptions extends Partial<ResponsesServerOptions> {
  /** Where the app sends its requests (`baseURL` minus `/v1`); any origin when absent. */
  baseUrl?: string;
}

/**
 * msw handlers for every intab route under `{baseUrl}/v1/`, and for WebSocket mode at
 * `ws(s)://…/v1/responses`. The engine defaults to `scripted`, the
 * store to a fresh `MemoryStore` per call of this function.
 *
 * @example
 * const handlers = intabHandlers(); // every origin's /v1 routes
 */
export function intabHandlers(opts: IntabHandlerOptions = {}) {
  const { baseUrl, ...rest } = opts;
  const server = createResponsesServer({
    ...rest,
    engine: rest.engine ?? new ScriptedEngine(),
    store: rest.store ?? new MemoryStore(),
  });
  const prefix = baseUrl ? baseUrl.replace(/\/+$/, '') : '*';
  // WebSocket mode of /v1/responses, where msw intercepts WebSockets (a global WebSocket: browsers,
  // Node 22+): each connection is a session over the same server, so it shares the store.
  const socket = ws.link(
    `${baseUrl ? baseUrl.replace(/^http/, 'ws').replace(/\/+$/, '') : '*'}/v1/responses`,
  );
  const sockets = socket.addEventListener('connection', ({ client }) => {
    const session = new ResponsesSocketSession({
      fetch: (request) => server.fetch(request),
      url: client.url.href.replace(/^ws/, 'http'),
      send: (text) => client.send(text),
    });
    client.addEventListener('message', (event) => session.receive(event.data));
    client.addEventListener('close', () => session.close());
  });
  // msw hands over its own Request; the core reads only Fetch and Streams from it.
  return [http.all(`${prefix}/v1/*`, ({ request }) => server.fetch(request)), sockets];
}
