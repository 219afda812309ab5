import { ApiError, invalidRequest, toApiError } from '../../common/api-error';
import { sseEventData } from '../../common/sse-data';
import { ConnectionCache, DEFAULT_SOCKET_CACHED_RESPONSES } from './connection-cache';
import { errorFromResponse, parseSocketMessage, socketError } from './socket-message';

/** How many messages may wait behind the one a connection is answering, by default. */
export const DEFAULT_SOCKET_QUEUED_MESSAGES = 16;

export interface SocketSessionOptions {
  /**
   * Answers `POST /v1/responses`: the same create as HTTP. In a tab it is the page's `fetch` (through
   * the service worker to the engine worker's core); in Node, a server's `fetch`.
   */
  fetch: (request: Request) => Promise<Response>;
  /** The `http(s):` URL of `/v1/responses` that each create is posted to. */
  url: string;
  /** Sends one server event (JSON text) to the client. */
  send: (text: string) => void;
  /** Headers every create carries (an `Authorization` for a server that wants one). */
  headers?: Record<string, string>;
  /** Messages that may wait behind the running one; past it a message gets an `error` event. */
  maxQueued?: number;
  /** `store: false` responses kept for continuation on this connection. */
  maxCached?: number;
}

/** What a cached response carries into a continuation: a stored response it continued, and the items after it. */
interface CachedChain {
  /** The stored response the chain started from (the core reads its history), or null. */
  base: string | null;
  items: unknown[];
}

const TERMINAL_OK = new Set(['response.completed', 'response.incomplete']);

/**
 * One WebSocket-mode connection to `/v1/responses`: each `response.create` message is posted to the
 * core's create with `stream: true`, and its SSE events go back one JSON message each, through the
 * terminal one. Messages are answered in turn. `store: false` responses are remembered by this
 * connection alone, so `previous_response_id` can continue them here (their items are carried into
 * the create as input); closing the session aborts the create it was running, like an aborted fetch.
 *
 * @example
 * const session = new ResponsesSocketSession({ fetch: server.fetch, url: 'http://localhost/v1/responses', send: (t) => ws.send(t) });
 * session.receive('{"type":"response.create","model":"scripted","input":"hi"}');
 */
export class ResponsesSocketSession {
  readonly #opts: SocketSessionOptions;
  readonly #cache: ConnectionCache<CachedChain>;
  readonly #queue: unknown[] = [];
  readonly #abort = new AbortController();
  #running = false;

  constructor(opts: SocketSessionOptions) {
    this.#opts = opts;
    this.#cache = new ConnectionCache(opts.maxCached ?? DEFAULT_SOCKET_CACHED_RESPONSES);
  }

  get closed(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Takes one client message; its events follow those of the messages before it. */
  receive(data: unknown): void {
    if (this.closed) return;
    const max = this.#opts.maxQueued ?? DEFAULT_SOCKET_QUEUED_MESSAGES;
    if (this.#queue.length >= max) {
      this.#emit(
        socketError(
          invalidRequest(
            null,
            `Too many messages are waiting on this connection (at most ${max} behind the running one): wait for a terminal event before sending more.`,
            'too_many_queued_messages',
          ),
        ),
      );
      return;
    }
    this.#queue.push(data);
    if (!this.#running) void this.#drain();
  }

  /** Ends the connection: the running create is aborted, waiting messages and the cache are dropped. */
  close(): void {
    if (this.closed) return;
    this.#queue.length = 0;
    this.#cache.clear();
    this.#abort.abort(new DOMException('The WebSocket was closed.', 'AbortError'));
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      // The queue is bounded (maxQueued), so shift() stays cheap.
      while (this.#queue.length > 0 && !this.closed) await this.#answer(this.#queue.shift());
    } finally {
      this.#running = false;
    }
  }

  #emit(event: unknown): void {
    if (!this.closed) this.#opts.send(JSON.stringify(event));
  }

  /** Answers one message through its terminal event (or one `error` event). Never throws. */
  async #answer(data: unknown): Promise<void> {
    const parsed = parseSocketMessage(data);
    if ('error' in parsed) return this.#emit(socketError(parsed.error));
    const { body } = parsed;
    const previousId = typeof body.previous_response_id === 'string' ? body.previous_response_id : null;
    const cached = previousId ? this.#cache.history(previousId) : undefined;
    const input = asItems(body.input);
    const sent: Record<string, unknown> = { ...body, stream: true };
    // A cached (unstored) response is continued by carrying its items in as input, ahead of the new
    // input, from the stored response it continued, if any; the core validates them as any input.
    const chain: CachedChain = { base: previousId, items: input ?? [] };
    if (cached && input) {
      const { base, items } = cached;
      chain.base = base;
      chain.items = [...items, ...input];
      sent.input = chain.items;
      if (base) sent.previous_response_id = base;
      else delete sent.previous_response_id;
    }
    let ended = false;
    try {
      const res = await this.#opts.fetch(
        new Request(this.#opts.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...this.#opts.headers },
          body: JSON.stringify(sent),
          signal: this.#abort.signal,
        }),
      );
      if (!res.ok || !res.body) throw await errorFromResponse(res);
      // The core's own body: its events are bounded where they are made, so no caps here.
      for await (const data of sseEventData(res.body)) {
        if (this.closed) break;
        const event = JSON.parse(data) as Record<string, unknown>;
        // The core's in-band error (a final write that failed after the terminal event) in the socket's envelope.
        if (event.type === 'error') {
          this.#emit(socketError(inBandError(event)));
          continue;
        }
        const response = event.response as Record<string, unknown> | undefined;
        if (response && previousId) response.previous_response_id = previousId;
        this.#emit(event);
        if (TERMINAL_OK.has(event.type as string) && response) {
          ended = true;
          if (body.store === false && Array.isArray(response.output))
            this.#cache.keep(response.id as string, {
              base: chain.base,
              items: [...chain.items, ...response.output],
            });
        }
      }
    } catch (err) {
      this.#emit(socketError(this.closed ? err : toApiError(err)));
    } finally {
      // A continuation that did not end well takes its cache entry with it (the chain may be what failed).
      if (!ended && previousId) this.#cache.evict(previousId);
    }
  }
}

/** A create's `input` as a list of items (a string is one user message), or null when it is neither. */
function asItems(input: unknown): unknown[] | null {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : null;
}

/** An SSE `error` event of the core (`{code, message, param, error: {type, …}}`) as an {@link ApiError}. */
function inBandError(event: Record<string, unknown>): ApiError {
  const nested = (event.error ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return new ApiError(
    500,
    text(nested.type) ?? 'server_error',
    text(event.code) ?? text(nested.code),
    text(event.param) ?? text(nested.param),
    text(event.message) ?? text(nested.message) ?? 'The server had an error while processing your request.',
  );
}
