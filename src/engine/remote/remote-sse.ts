/**
 * Server-sent events from an upstream body: each event's `data`, with a bound on the line length,
 * on the event's length and on the silence between reads, and the reader cancelled (so the connection closes) however
 * the consumer stops.
 */
import { type SseCaps, sseEventData } from '../../common/sse-data';
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
  const caps: SseCaps = {
    maxLineChars: REMOTE_MAX_LINE_BYTES,
    // A server sending `data:` lines without the blank line that ends an event is cut off.
    maxEventChars: REMOTE_MAX_EVENT_BYTES,
    tooLarge: (what, cap) =>
      upstreamError(
        server,
        what === 'event'
          ? `sent a stream event over ${cap} characters without the blank line that ends it; the stream was closed.`
          : `sent a stream line over ${cap} characters; the stream was closed.`,
      ),
  };
  const read = (reader: ReadableStreamDefaultReader<Uint8Array>) => readWithin(reader, stallMs, server);
  for await (const data of sseEventData(body, { caps, read })) {
    if (data.trim() === '[DONE]') return;
    yield data;
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
