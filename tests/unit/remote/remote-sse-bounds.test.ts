/**
 * One upstream SSE event is bounded however many `data:` lines it has (issue 38 §3.8): a server
 * that sends lines without the blank line that ends an event is cut off, not buffered forever.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import { normalizeServer, REMOTE_MAX_EVENT_BYTES } from '../../../src/engine/remote/remote-options';
import { sseData } from '../../../src/engine/remote/remote-sse';

const server = normalizeServer({ baseURL: 'http://llm.test/v1' }, null);

/**
 * A body of one event without end (no blank line): chunks of about 64 KiB, each `line` repeated,
 * counting the reads and the bytes pulled.
 */
function endlessEvent(line = `data: ${'x'.repeat(64 * 1024 - 7)}\n`) {
  const chunk = new TextEncoder().encode(line.repeat(Math.max(1, Math.floor((64 * 1024) / line.length))));
  let pulled = 0;
  let bytes = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(ctl) {
      // Far past any cap the body ends, so a reader without a bound fails the test instead of hanging it.
      if (bytes > 8 * REMOTE_MAX_EVENT_BYTES) return ctl.close();
      pulled++;
      bytes += chunk.byteLength;
      ctl.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, pulled: () => pulled, bytes: () => bytes, cancelled: () => cancelled };
}

async function failureOf(body: ReadableStream<Uint8Array>): Promise<unknown> {
  return (async () => {
    for await (const _ of sseData(body, server, 60_000)) throw new Error('no event was whole');
  })().catch((e: unknown) => e);
}

describe('upstream SSE events', () => {
  it('fails with a 502 once one event passes its cap, having read no more than the cap, and closes the stream', async () => {
    const up = endlessEvent();
    const err = await failureOf(up.body);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(502);
    expect((err as ApiError).message).toMatch(/stream event over/);
    expect(up.pulled()).toBeLessThanOrEqual(REMOTE_MAX_EVENT_BYTES / (64 * 1024) + 4);
    expect(up.cancelled()).toBe(true);
  }, 60_000);

  // Issue 43: `data: x` lines counted 2 characters of their 8, so 16 MiB went by before the cap.
  it.each([
    ['short data lines', 'data: x\n'],
    ['empty data lines', 'data:\n'],
    ['lines of other fields', 'id: 1\n'],
  ])(
    'bounds one event of %s by what was sent, then fails and closes the stream',
    async (_, line) => {
      const up = endlessEvent(line);
      const err = await failureOf(up.body);
      expect(up.bytes()).toBeGreaterThanOrEqual(REMOTE_MAX_EVENT_BYTES);
      expect(up.bytes()).toBeLessThan(2 * REMOTE_MAX_EVENT_BYTES);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(502);
      expect((err as ApiError).message).toMatch(/stream event over \d+ characters without the blank line/);
      expect(up.cancelled()).toBe(true);
    },
    60_000,
  );

  it('still reads events of many lines under the cap', async () => {
    const text = 'data: a\ndata: b\n\ndata: [DONE]\n\n';
    const body = new Response(text).body as ReadableStream<Uint8Array>;
    const got: string[] = [];
    for await (const d of sseData(body, server, 60_000)) got.push(d);
    expect(got).toEqual(['a\nb']);
  });
});
