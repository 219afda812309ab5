import { IntabWebSocket, type IntabWebSocketOptions } from './intab-web-socket';

type Listener = (...args: never[]) => void;

/**
 * The socket shape the `openai` SDK's `ResponsesWSBase` drives (its `WebSocketLike`: Node-style
 * `on`/`off`/`once` with positional arguments), over an {@link IntabWebSocket}. Return it from
 * `_createSocket` and `ResponsesWS`-style code runs against intab, in a tab or in Node.
 *
 * @example
 * class IntabResponsesWS extends ResponsesWSBase<IntabSocketLike> {
 *   constructor(client: OpenAI) { super(client); this._connectInitial(); }
 *   protected _createSocket(url: URL) { return new IntabSocketLike(url); }
 * }
 */
export class IntabSocketLike {
  readonly socket: IntabWebSocket;
  readonly #wrapped = new Map<Listener, { type: string; fn: (e: Event) => void }>();

  constructor(url: string | URL, opts: IntabWebSocketOptions = {}) {
    this.socket = new IntabWebSocket(url, undefined, opts);
  }

  get readyState(): number {
    return this.socket.readyState;
  }

  send(data: string | ArrayBufferLike | ArrayBufferView): void {
    this.socket.send(data);
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  // biome-ignore lint/suspicious/noExplicitAny: the SDK's listeners take event-specific arguments.
  on(event: string, listener: (...args: any[]) => void): void {
    const fn = (e: Event) => {
      const ev = e as Event & { data?: unknown; code?: number; reason?: string };
      if (event === 'message') listener(ev.data, typeof ev.data !== 'string');
      else if (event === 'close') listener(ev.code, ev.reason);
      else if (event === 'error') listener(new Error('WebSocket error'));
      else listener();
    };
    this.#wrapped.set(listener, { type: event, fn });
    this.socket.addEventListener(event, fn);
  }

  // biome-ignore lint/suspicious/noExplicitAny: as for on().
  off(event: string, listener: (...args: any[]) => void): void {
    const entry = this.#wrapped.get(listener);
    if (!entry || entry.type !== event) return;
    this.#wrapped.delete(listener);
    this.socket.removeEventListener(event, entry.fn);
  }

  // biome-ignore lint/suspicious/noExplicitAny: as for on().
  once(event: string, listener: (...args: any[]) => void): void {
    const once = (...args: unknown[]) => {
      this.off(event, once);
      listener(...args);
    };
    this.on(event, once);
  }
}
