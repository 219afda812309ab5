/**
 * The events of an SSE body, as parsed JSON objects, in order; comments (model-load progress) are
 * skipped. It reads the core's own encoding (`event:`/`data:` lines, frames split by a blank line),
 * so one `data:` line per frame is all it needs, though it joins several as the SSE format says.
 *
 * @example
 * for await (const event of sseEvents(res.body)) socket.send(JSON.stringify(event));
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value: bytes, done } = await reader.read();
      if (done) break;
      const value = decoder.decode(bytes, { stream: true });
      // Only the new text is searched for a frame's end, and the buffer is cut once per chunk:
      // linear in the body, however many frames a chunk carries.
      const searchFrom = Math.max(0, buffer.length - 1);
      buffer += value;
      let start = 0;
      for (;;) {
        const end = buffer.indexOf('\n\n', Math.max(start, searchFrom));
        if (end < 0) break;
        const event = frameData(buffer.slice(start, end));
        start = end + 2;
        if (event) yield event;
      }
      buffer = buffer.slice(start);
    }
    const last = frameData(buffer);
    if (last) yield last;
  } finally {
    // A consumer that stops early (the socket closed) cancels the body: the run stops as on an aborted fetch.
    await reader.cancel().catch(() => {});
  }
}

/** The JSON of one frame's `data:` lines, or null for a comment-only frame. */
function frameData(frame: string): Record<string, unknown> | null {
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
  if (data.length === 0) return null;
  return JSON.parse(data.join('\n')) as Record<string, unknown>;
}
