import { IntabWebSocket, type IntabWebSocketOptions } from '../core/websocket';

export interface InstallWebSocketOptions extends IntabWebSocketOptions {
  /** Creates wait for this (intab's `ready`): until the service worker controls the page, `fetch` would miss it. */
  ready?: Promise<unknown>;
  /** intab's registration scope (`/` by default): the socket served is `{scope}v1/responses` on this origin. */
  scope?: string;
}

const INSTALLED = Symbol.for('intab.websocket.installed');

type WebSocketClass = typeof WebSocket & { [INSTALLED]?: { uninstall: () => void } };

/**
 * Routes this page's `new WebSocket(…)` for `ws(s)://<this origin>{scope}v1/responses` to an
 * {@link IntabWebSocket} (WebSocket mode, served in the tab), and every other URL to the browser's
 * own WebSocket, untouched. `instanceof WebSocket` holds for both. Returns the function that puts
 * the browser's class back. Idempotent: a second call returns the first one's uninstall.
 *
 * @example
 * installWebSocket({ ready: intab.ready });
 * const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/v1/responses');
 */
export function installWebSocket(opts: InstallWebSocketOptions = {}): () => void {
  const current = globalThis.WebSocket as WebSocketClass;
  const installed = current[INSTALLED];
  if (installed) return installed.uninstall;
  const Native = current;
  const { ready, scope = '/', ...socketOptions } = opts;
  const path = `${new URL(scope, location.href).pathname.replace(/\/?$/, '/')}v1/responses`;
  const fetchAfterReady = async (request: Request) => {
    await ready;
    return (socketOptions.fetch ?? globalThis.fetch)(request);
  };

  const isIntab = (url: string | URL): boolean => {
    try {
      const target = new URL(url, location.href);
      const origin = location.origin.replace(/^http/, 'ws');
      return (
        `${target.protocol.replace(/^http/, 'ws')}//${target.host}` === origin && target.pathname === path
      );
    } catch {
      return false;
    }
  };

  // A function, not a subclass: `new` must be able to answer either kind of socket.
  function RoutedWebSocket(this: unknown, url: string | URL, protocols?: string | string[]): WebSocket {
    if (!new.target) throw new TypeError("Failed to construct 'WebSocket': Please use the 'new' operator.");
    if (isIntab(url))
      return new IntabWebSocket(url, protocols, {
        ...socketOptions,
        fetch: fetchAfterReady,
      }) as unknown as WebSocket;
    return protocols === undefined ? new Native(url) : new Native(url, protocols);
  }
  const uninstall = () => {
    if (globalThis.WebSocket === (RoutedWebSocket as unknown)) globalThis.WebSocket = Native;
  };
  Object.defineProperties(RoutedWebSocket, {
    prototype: { value: Native.prototype },
    CONNECTING: { value: 0 },
    OPEN: { value: 1 },
    CLOSING: { value: 2 },
    CLOSED: { value: 3 },
    [Symbol.hasInstance]: { value: (x: unknown) => x instanceof Native || x instanceof IntabWebSocket },
    [INSTALLED]: { value: { uninstall } },
  });
  globalThis.WebSocket = RoutedWebSocket as unknown as typeof WebSocket;
  return uninstall;
}
