/**
 * Server-sent events from an upstream body: each event's `data`, with a bound on the line length,
 * on the event's length and on the silence between reads, and the reader cancelled (so the connection closes) however
 * the consumer stops.
 */
import { upstreamError, upstreamTimeout } from './remote-errors';
import { REMOTE_MAX_EVENT_BYTES, REMOTE_MAX_LINE_BYTES, type RemoteServer } from './remote-options';

/**
 * Yields the `data` of each event until `[DONE]` or the end of the body.
 *
 * @example
 * for await (const data of sseData(res.body, server, 120_000)) chunks.push(JSON.parse(data));
 */
export async function* sseData(
  body: ReadableStream<Uint8Array>,
  server: RemoteServer,
  stallMs: number,
): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  // Characters of the event being read: a server sending `data:` lines without end is cut off.
  let eventChars = 0;
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, stallMs, server);
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') {
          if (data.length > 0) {
            const event = data.join('\n');
            data = [];
            eventChars = 0;
            if (event.trim() === '[DONE]') return;
            yield event;
          }
        } else if (line.startsWith('data:')) {
          const part = line.slice(line[5] === ' ' ? 6 : 5);
          eventChars += part.length + 1;
          if (eventChars > REMOTE_MAX_EVENT_BYTES)
            throw upstreamError(server, `sent a stream event over ${REMOTE_MAX_EVENT_BYTES} bytes.`);
          data.push(part);
        }
        // `event:`, `id:`, `retry:` and comments carry nothing the chat stream needs.
        nl = buffer.indexOf('\n');
      }
      if (buffer.length > REMOTE_MAX_LINE_BYTES)
        throw upstreamError(server, `sent a stream line over ${REMOTE_MAX_LINE_BYTES} bytes.`);
      if (done) {
        if (data.length > 0 && data.join('\n').trim() !== '[DONE]') yield data.join('\n');
        return;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** One read, failing with a 504 when the server sends nothing for `ms`. */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  ms: number,
  server: RemoteServer,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(upstreamTimeout(server, ms, 'nothing more of its stream')), ms);
  });
  try {
    return await Promise.race([reader.read(), silent]);
  } catch (err) {
    if ((err as { code?: string })?.code === 'upstream_timeout') throw err;
    // The connection dropped mid-stream (the server stopped): the run fails, naming the server.
    throw upstreamError(
      server,
      `closed the stream before it ended (${err instanceof Error ? err.message : String(err)}).`,
    );
  } finally {
    clearTimeout(timer);
  }
}
