/**
 * The WebSocket-mode behaviours of the Open Responses compliance suite, as scenarios over any
 * WebSocket-compatible constructor: Node tests run them over an IntabWebSocket on the core's fetch,
 * the Chromium pages over `new WebSocket(...)` once intab's socket is installed. Each resolves with
 * what it saw, and the tests assert on that.
 */

/** The part of the WebSocket interface these scenarios use. */
export interface SocketLike {
  readyState: number;
  send(data: string | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, fn: (e: Event) => void): void;
}

export type Connect = () => SocketLike;
export type WsEvent = Record<string, unknown> & { type: string };

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

/** A connection that hands out its events in order, one create's worth at a time. */
export class Conn {
  readonly events: WsEvent[] = [];
  #read = 0;
  #wake: (() => void) | null = null;
  closed: { code: number; reason: string } | null = null;

  private constructor(readonly ws: SocketLike) {
    ws.addEventListener('message', (e) => {
      this.events.push(JSON.parse((e as MessageEvent).data as string) as WsEvent);
      this.#wake?.();
    });
    ws.addEventListener('close', (e) => {
      const c = e as CloseEvent;
      this.closed = { code: c.code, reason: c.reason };
      this.#wake?.();
    });
  }

  static async open(connect: Connect): Promise<Conn> {
    const ws = connect();
    const conn = new Conn(ws);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('error', () => reject(new Error('the socket failed to open')));
    });
    return conn;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The events of the next create, through its terminal event (or its `error` event). */
  async turn(): Promise<WsEvent[]> {
    const out: WsEvent[] = [];
    for (;;) {
      while (this.#read < this.events.length) {
        const e = this.events[this.#read++] as WsEvent;
        out.push(e);
        if (TERMINAL.has(e.type)) return out;
      }
      if (this.closed) throw new Error(`closed (${this.closed.code}) after ${out.length} events`);
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Sends a create and waits for its events. */
  async create(body: Record<string, unknown>): Promise<WsEvent[]> {
    this.send({ type: 'response.create', ...body });
    return this.turn();
  }
}

/** The terminal event's response (or the error event). */
export function last(events: WsEvent[]): WsEvent {
  return events.at(-1) as WsEvent;
}

export function responseOf(events: WsEvent[]): Record<string, unknown> {
  // An error event has no response: an empty one keeps the scenario going, and its assertions fail.
  return (last(events).response ?? {}) as Record<string, unknown>;
}

/** The text of a completed turn's output messages. */
export function textOf(events: WsEvent[]): string {
  const output = (responseOf(events)?.output ?? []) as { type: string; content?: { text?: string }[] }[];
  return output
    .filter((i) => i.type === 'message')
    .flatMap((i) => i.content ?? [])
    .map((c) => c.text ?? '')
    .join('');
}

/**
 * Runs every scenario and answers what each saw (plain data, so a page can hand it to its test).
 * `compact` posts to `/v1/responses/compact` and answers its JSON (the page's fetch, or the server's).
 */
export async function runScenarios(
  connect: Connect,
  model: string,
  compact: (body: unknown) => Promise<unknown>,
  extra: Record<string, unknown> = {},
) {
  const a = await Conn.open(connect);
  const create = (c: Conn, body: Record<string, unknown>) => c.create({ ...extra, ...body });
  // One create, then a second on the same connection.
  const first = await create(a, { model, input: 'hello there', store: false });
  const second = await create(a, { model, input: 'second turn', store: false });
  // Continuation of a store:false response on the same connection: the scripted model's transcript
  // shows what history it was given.
  const continued = await create(a, {
    model,
    input: model === 'scripted' ? '!transcript' : 'and again',
    previous_response_id: responseOf(first).id,
    store: false,
  });
  // Bad messages get an error event, and the socket stays usable.
  a.send('not json');
  const badJson = await a.turn();
  a.send({ type: 'response.cancel' });
  const badType = await a.turn();
  a.send({ type: 'response.create', model, input: 'x', stream: true });
  const streamField = await a.turn();
  const afterBad = await create(a, { model, input: 'still here', store: false });
  // A missing previous response.
  const missing = await create(a, {
    model,
    input: 'x',
    previous_response_id: `resp_openresponses_missing_${Date.now()}`,
  });
  // A failed continuation evicts the entry it used.
  const failed = await create(a, {
    model,
    previous_response_id: responseOf(afterBad).id,
    store: false,
    // The scripted engine throws after its first token (response.failed); a real one gets a 400.
    ...(model === 'scripted' ? { input: '!fail' } : { input: 'x', temperature: 99 }),
  });
  const afterEvict = await create(a, { model, input: 'x', previous_response_id: responseOf(afterBad).id });
  // Another connection has no cache of the first one's store:false responses.
  const b = await Conn.open(connect);
  const otherConn = await create(b, {
    model,
    input: 'x',
    previous_response_id: responseOf(first).id,
    store: false,
  });
  const cleanAfter = await create(b, { model, input: 'fresh start', store: false });
  // The output of /v1/responses/compact starts a new chain on a socket.
  const compacted = (await compact({
    model,
    input: [{ role: 'user', content: 'remember 42' }, ...(responseOf(cleanAfter).output as unknown[])],
  })) as {
    output: unknown[];
  };
  const fromCompact = await create(b, {
    model,
    input: [...(compacted.output ?? []), { role: 'user', content: 'go on' }],
    store: false,
  });
  const fromCompactNext = await create(b, {
    model,
    input: 'next',
    previous_response_id: responseOf(fromCompact).id,
    store: false,
  });
  a.ws.close(1000, 'done');
  b.ws.close();
  return {
    first,
    second,
    continued,
    badJson,
    badType,
    streamField,
    afterBad,
    missing,
    failed,
    afterEvict,
    otherConn,
    cleanAfter,
    compactOutput: compacted.output,
    fromCompact,
    fromCompactNext,
  };
}
