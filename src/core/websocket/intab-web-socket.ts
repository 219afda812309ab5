import { ResponsesSocketSession, type SocketSessionOptions } from './socket-session';

export interface IntabWebSocketOptions
  extends Partial<Pick<SocketSessionOptions, 'fetch' | 'headers' | 'maxQueued' | 'maxCached'>> {}

/** Close codes a client may send (RFC 6455 §7.4; the WebSocket standard allows 1000 and 3000–4999). */
function checkCloseCode(code: number | undefined): void {
  if (code === undefined || code === 1000 || (code >= 3000 && code <= 4999)) return;
  throw new DOMException(`The close code must be 1000 or in 3000-4999; got ${code}.`, 'InvalidAccessError');
}

/** A `close` event; Node before 23 has no global CloseEvent. */
function closeEvent(code: number, reason: string, wasClean: boolean): Event {
  if (typeof CloseEvent === 'function') return new CloseEvent('close', { code, reason, wasClean });
  return Object.assign(new Event('close'), { code, reason, wasClean });
}

type Handler = ((this: IntabWebSocket, ev: Event) => unknown) | null;

/**
 * A WebSocket to `/v1/responses` that never leaves the tab: the same interface as the browser's
 * `WebSocket` (`readyState`, `send`, `close`, `on…` handlers and `addEventListener`, `binaryType`),
 * answered by a {@link ResponsesSocketSession} over `fetch` (in a tab, the service worker and the
 * engine worker's core; in Node, a server's `fetch`). A service worker cannot intercept a WebSocket,
 * which is why this one is served from the page.
 *
 * @example
 * const ws = new IntabWebSocket(location.origin.replace(/^http/, 'ws') + '/v1/responses');
 * ws.onmessage = (e) => console.log(JSON.parse(e.data).type);
 * ws.onopen = () => ws.send(JSON.stringify({ type: 'response.create', model: 'scripted', input: 'hi' }));
 */
export class IntabWebSocket extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;

  readonly url: string;
  readonly protocol = '';
  readonly extensions = '';
  readonly bufferedAmount = 0;
  binaryType: 'blob' | 'arraybuffer' = 'blob';
  readyState = 0;
  onopen: Handler = null;
  onmessage: Handler = null;
  onerror: Handler = null;
  onclose: Handler = null;
  readonly #session: ResponsesSocketSession;

  constructor(url: string | URL, _protocols?: string | string[], opts: IntabWebSocketOptions = {}) {
    super();
    const base = (globalThis as { location?: { href: string } }).location?.href;
    const target = new URL(url, base);
    if (target.protocol === 'http:' || target.protocol === 'https:')
      target.protocol = target.protocol === 'http:' ? 'ws:' : 'wss:';
    if (target.protocol !== 'ws:' && target.protocol !== 'wss:')
      throw new DOMException(
        `The URL's scheme must be 'ws' or 'wss'; got '${target.protocol}'.`,
        'SyntaxError',
      );
    target.hash = '';
    this.url = target.href;
    const http = new URL(target.href.replace(/^ws/, 'http'));
    const fetch = opts.fetch ?? ((request: Request) => globalThis.fetch(request));
    this.#session = new ResponsesSocketSession({
      ...opts,
      fetch,
      url: http.href,
      send: (text) => this.#fire(new MessageEvent('message', { data: text, origin: target.origin })),
    });
    // A browser opens a socket on a later task, so handlers set right after `new` still hear `open`.
    setTimeout(() => {
      if (this.readyState !== this.CONNECTING) return;
      this.readyState = this.OPEN;
      this.#fire(new Event('open'));
    }, 0);
  }

  /** Sends one client event (JSON text). Binary data is answered with an `error` event, as bad JSON is. */
  send(data: string | ArrayBufferLike | ArrayBufferView | Blob): void {
    if (this.readyState === this.CONNECTING)
      throw new DOMException(
        "Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.",
        'InvalidStateError',
      );
    // A browser drops what is sent once closing has begun (it only counts it in bufferedAmount).
    if (this.readyState !== this.OPEN) return;
    this.#session.receive(data);
  }

  /** Closes the socket: the create it was running is aborted, and `close` follows with `code` (1005 when none). */
  close(code?: number, reason = ''): void {
    checkCloseCode(code);
    if (new TextEncoder().encode(reason).length > 123)
      throw new DOMException('The close reason must be at most 123 bytes of UTF-8.', 'SyntaxError');
    if (this.readyState === this.CLOSING || this.readyState === this.CLOSED) return;
    const wasOpen = this.readyState === this.OPEN;
    this.readyState = this.CLOSING;
    this.#session.close();
    setTimeout(() => {
      this.readyState = this.CLOSED;
      // Closed before it opened: the browser reports a failed connection (1006) with an `error` first.
      if (!wasOpen) this.#fire(new Event('error'));
      this.#fire(closeEvent(wasOpen ? (code ?? 1005) : 1006, wasOpen ? reason : '', wasOpen));
    }, 0);
  }

  #fire(event: Event): void {
    // Messages never arrive in the middle of the caller's own send(), as with a real socket.
    queueMicrotask(() => {
      if (event.type === 'message' && this.readyState !== this.OPEN) return;
      this[`on${event.type}` as 'onopen']?.call(this, event);
      this.dispatchEvent(event);
    });
  }
}
