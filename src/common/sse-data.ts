/**
 * The one SSE reader: the `data` of each event of a `text/event-stream` body, for the remote engine
 * (an upstream server's chat chunks) and the core's WebSocket mode (the core's own events). Lines end
 * at `\n` (a `\r` before it is dropped); an event's `data:` lines are joined with `\n`, and a blank
 * line ends the event. `event:`, `id:`, `retry:` and comments carry nothing either user needs, and an
 * event without data (a comment-only keep-alive) yields nothing.
 *
 * Bounded: each chunk is searched for line ends once, from its own start only, and each line is copied
 * once (the unfinished end of a chunk waits as a piece, joined when its line ends), so the work is
 * linear in the body. Memory is bounded by the caps, where the body is not trusted: the longest
 * unfinished line and the most `data` one event may gather.
 */

/** Limits on what one event may hold, and the error for passing one. */
export interface SseCaps {
  /** The longest line still waiting for its end, in UTF-16 code units. */
  maxLineChars: number;
  /**
   * The most characters one event may span, as sent: every line since the last blank one, each with
   * its field name and its `\n` (issue 43: counting only the `data` let `data: x` lines, 2 counted of
   * 8 sent, pull 4× the cap). At most 3 bytes of UTF-8 per character, so the bytes read are bounded too.
   */
  maxEventChars: number;
  /** The error thrown when a cap is passed. */
  tooLarge: (what: 'line' | 'event', cap: number) => Error;
}

/** How {@link sseEventData} reads: its caps (none for a trusted body) and its read (to put a timeout on). */
export interface SseReadOptions {
  caps?: SseCaps;
  read?: (reader: ReadableStreamDefaultReader<Uint8Array>) => Promise<ReadableStreamReadResult<Uint8Array>>;
}

/**
 * The `data` of each event of `body`, in order, until the body ends. However the consumer stops (a
 * `break`, a throw), the body is cancelled: an upstream connection closes, the core's run stops.
 *
 * @example
 * for await (const data of sseEventData(res.body)) socket.send(data);
 */
export async function* sseEventData(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions = {},
): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseDataParser(options.caps);
  try {
    for (;;) {
      const { done, value } = await (options.read ? options.read(reader) : reader.read());
      yield* parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      if (done) {
        const last = parser.end();
        if (last !== null) yield last;
        return;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * SSE text in, each finished event's `data` out, a chunk at a time (see the module's comment).
 *
 * @example
 * const parser = new SseDataParser();
 * parser.push('data: a\ndata: b\n\ndata: c\n'); // → ['a\nb']
 * parser.end();                                 // → 'c'
 */
export class SseDataParser {
  /** The unfinished line: the chunk ends that came since the last line end. */
  private pieces: string[] = [];
  private pieceChars = 0;
  private data: string[] = [];
  private eventChars = 0;

  constructor(private readonly caps?: SseCaps) {}

  /** Reads `text`; returns the data of the events it finishes. */
  push(text: string): string[] {
    const out: string[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      let line = text.slice(start, nl);
      if (this.pieces.length > 0) {
        line = this.pieces.join('') + line;
        this.pieces = [];
        this.pieceChars = 0;
      }
      const event = this.line(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (event !== null) out.push(event);
      start = nl + 1;
    }
    if (start < text.length) {
      this.pieces.push(text.slice(start));
      this.pieceChars += text.length - start;
      const caps = this.caps;
      if (caps && this.pieceChars > caps.maxLineChars) throw caps.tooLarge('line', caps.maxLineChars);
    }
    return out;
  }

  /**
   * At the body's end: the data lines of an event that no blank line finished, or null. A line
   * without its line end is dropped (a body cut mid-line); a server that ends its last event with no
   * blank line still has that event read.
   */
  end(): string | null {
    this.pieces = [];
    this.pieceChars = 0;
    return this.line('');
  }

  /** One line: a blank one finishes the event (its data, or null for one without). */
  private line(line: string): string | null {
    if (line === '') {
      this.eventChars = 0;
      if (this.data.length === 0) return null;
      const event = this.data.join('\n');
      this.data = [];
      return event;
    }
    // The whole line counts, whatever its field: an event is bounded by what the body spends on it.
    this.eventChars += line.length + 1;
    const caps = this.caps;
    if (caps && this.eventChars > caps.maxEventChars) throw caps.tooLarge('event', caps.maxEventChars);
    if (line.startsWith('data:')) this.data.push(line.slice(line.charCodeAt(5) === 32 /* space */ ? 6 : 5));
    return null;
  }
}
