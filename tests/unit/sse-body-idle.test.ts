/**
 * Issue 15, class 14: an SSE body whose reader stops reading (the service worker reading it was
 * stopped mid-stream, and Chromium tells the worker's stream nothing) is given up on after `idleMs`.
 *
 * The clock is vitest's (the producer's pace, the reader's pauses and the idle watch's timer and
 * `Date.now`): a loaded machine cannot make a slow reader's pause outlast `idleMs`, or the wait
 * before the check fall short of it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sseBody } from '../../src/core/http/sse-body';
import type { StreamEvent } from '../../src/core/responses/run/response-run';
import { makeDeltaEvents } from './fixtures/response-fixture';

/** A producer that pushes one event every `everyMs`, as a model generating tokens does. */
function producer(everyMs: number) {
  const events = makeDeltaEvents('resp_1', 0, 10_000) as StreamEvent[];
  let stopped = false;
  async function* generate(): AsyncGenerator<StreamEvent> {
    for (const e of events) {
      if (stopped) return;
      await new Promise((r) => setTimeout(r, everyMs));
      yield e;
    }
  }
  return { iterable: generate(), stop: () => (stopped = true) };
}

/** Moves the fake clock on by `ms`, running the timers due and the promises they settle. */
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** One read, with the clock moved on by `ms` while it waits (the producer's next event comes). */
async function readAfter(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number) {
  const next = reader.read();
  await advance(ms);
  return next;
}

/** Cancels the body, with the clock moved on by `ms` (the producer's step in flight ends). */
async function cancelAfter(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number) {
  const cancelled = reader.cancel();
  await advance(ms);
  await cancelled;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('sseBody with idleMs', () => {
  it('gives up on a reader that stopped reading while events wait, and stays readable', async () => {
    const src = producer(5);
    const onCancel = vi.fn(() => src.stop());
    const reader = sseBody(src.iterable, onCancel, { idleMs: 150 }).getReader();
    expect((await readAfter(reader, 5)).done).toBe(false);
    await advance(100); // events pile up unread, short of idleMs
    expect(onCancel).not.toHaveBeenCalled();
    await advance(100); // past idleMs since the last read
    expect(onCancel).toHaveBeenCalledTimes(1);
    // A reader that comes back reads what was produced, up to the end the producer gave it.
    let chunks = 0;
    for (;;) {
      const { done } = await readAfter(reader, 5);
      if (done) break;
      chunks++;
    }
    expect(chunks).toBeGreaterThan(0);
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('never gives up on a reader that keeps reading, however slowly', async () => {
    const src = producer(2);
    const onCancel = vi.fn();
    const reader = sseBody(src.iterable, onCancel, { idleMs: 120 }).getReader();
    // 600 ms of reading, one read every 60 ms (events pile up between): each read restarts the watch.
    for (let i = 0; i < 10; i++) {
      expect((await readAfter(reader, 60)).done).toBe(false);
    }
    expect(onCancel).not.toHaveBeenCalled();
    await cancelAfter(reader, 2);
  });

  it('waits for ever without idleMs', async () => {
    const src = producer(2);
    const onCancel = vi.fn();
    const reader = sseBody(src.iterable, onCancel).getReader();
    await readAfter(reader, 2);
    await advance(300);
    expect(onCancel).not.toHaveBeenCalled();
    await cancelAfter(reader, 2);
    expect(onCancel).toHaveBeenCalledTimes(1);
  });
});
