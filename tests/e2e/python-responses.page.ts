/**
 * Page-side scripts for code_interpreter through the real service worker and engine worker (run
 * through `page.evaluate`, plain JSON in and out).
 */

/** Runs in the page: a streamed `POST /v1/responses`, returned as its events' types and the final response. */
export async function streamResponse(
  body: object,
): Promise<{ types: string[]; events: Record<string, unknown>[] }> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await res.text();
  const events = text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => l !== undefined && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
  return { types: events.map((e) => e.type as string), events };
}

/**
 * Runs in the page: as {@link streamResponse}, read as the bytes arrive; each event also says in
 * which read of the body it came (`read`, from 0) and when (`at`, ms since the request), so a test
 * can tell events sent as the model wrote from events sent together.
 */
export async function streamResponseTimed(
  body: object,
): Promise<{ types: string[]; events: Record<string, unknown>[]; reads: number[]; at: number[] }> {
  const start = performance.now();
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  if (!res.body) throw new Error(`no body (HTTP ${res.status})`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const events: Record<string, unknown>[] = [];
  const reads: number[] = [];
  const at: number[] = [];
  let buffer = '';
  for (let read = 0; ; read++) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const frames = buffer.split('\n\n');
    buffer = frames.pop() ?? '';
    for (const frame of frames) {
      const line = frame.split('\n').find((l) => l.startsWith('data: '));
      if (line === undefined || line === 'data: [DONE]') continue;
      events.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
      reads.push(read);
      at.push(performance.now() - start);
    }
  }
  return { types: events.map((e) => e.type as string), events, reads, at };
}
