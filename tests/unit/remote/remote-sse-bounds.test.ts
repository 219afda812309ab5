/**
 * One upstream SSE event is bounded however many `data:` lines it has (issue 38 §3.8): a server
 * that sends lines without the blank line that ends an event is cut off, not buffered forever.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import { normalizeServer, REMOTE_MAX_EVENT_BYTES } from '../../../src/engine/remote/remote-options';
import { sseData } from '../../../src/engine/remote/remote-sse';

const server = normalizeServer({ baseURL: 'http://llm.test/v1' }, null);

/** A body of `data:` lines of 64 KiB each without end (no blank line), counting what was pulled. */
function endlessEvent() {
  const line = new TextEncoder().encode(`data: ${'x'.repeat(64 * 1024)}\n`);
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(ctl) {
      pulled++;
      ctl.enqueue(line);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, pulled: () => pulled, cancelled: () => cancelled };
}

describe('upstream SSE events', () => {
  it('fails with a 502 once one event passes its cap, having read no more than the cap, and closes the stream', async () => {
    const up = endlessEvent();
    const err = await (async () => {
      for await (const _ of sseData(up.body, server, 60_000)) throw new Error('no event was whole');
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(502);
    expect((err as ApiError).message).toMatch(/stream event over/);
    expect(up.pulled()).toBeLessThanOrEqual(REMOTE_MAX_EVENT_BYTES / (64 * 1024) + 4);
    expect(up.cancelled()).toBe(true);
  }, 60_000);

  it('still reads events of many lines under the cap', async () => {
    const text = 'data: a\ndata: b\n\ndata: [DONE]\n\n';
    const body = new Response(text).body as ReadableStream<Uint8Array>;
    const got: string[] = [];
    for await (const d of sseData(body, server, 60_000)) got.push(d);
    expect(got).toEqual(['a\nb']);
  });
});
