// The SSE body's chunking (coalescing under backpressure) and the event log's batching: what is
// written where, never how long it takes (timings belong to `npm run bench`).
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it, vi } from 'vitest';
import { setPaceProbe } from '../../src/common/pace';
import { EventQueue } from '../../src/core/http/event-queue';
import { encodeSseEvent } from '../../src/core/http/sse';
import { SSE_COALESCE_LIMIT, sseBody } from '../../src/core/http/sse-body';
import { EVENT_LOG_MAX_BATCH, EventLog } from '../../src/core/responses/persist/event-log';
import type { StreamEvent } from '../../src/core/responses/run/response-run';
import { MemoryStore } from '../../src/store/index';
import { makeDeltaEvents, makeStoredResponse } from './fixtures/response-fixture';

/** A live source: events are pushed by the test, and the iterator waits for them. */
function source() {
  const queue: (StreamEvent | Error | null)[] = [];
  let wake: (() => void) | null = null;
  const returned = vi.fn();
  const iterable: AsyncIterable<StreamEvent> = {
    [Symbol.asyncIterator]: () => ({
      async next() {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r));
        const item = queue.shift();
        if (item instanceof Error) throw item;
        return item ? { done: false, value: item } : { done: true, value: undefined };
      },
      async return() {
        returned();
        return { done: true, value: undefined };
      },
    }),
  };
  const push = (...items: (StreamEvent | Error | null)[]) => {
    queue.push(...items);
    wake?.();
  };
  return { iterable, push, returned };
}

const decode = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('sseBody', () => {
  it('sends each event at once to a reader that keeps up', async () => {
    const src = source();
    const reader = sseBody(src.iterable).getReader();
    const [a, b] = makeDeltaEvents('resp_1', 0, 2) as StreamEvent[];
    const first = reader.read();
    src.push(a as StreamEvent);
    expect(decode((await first).value)).toBe(encodeSseEvent(a as StreamEvent));
    const second = reader.read();
    src.push(b as StreamEvent);
    expect(decode((await second).value)).toBe(encodeSseEvent(b as StreamEvent));
  });

  it('coalesces the events that arrived while the reader was busy into one chunk, in order', async () => {
    // pace()'s clock held still (issue 38): on a loaded machine the pump's turn grew past pace()'s
    // budget and it yielded mid-batch, so the read took only part of the events that had arrived.
    setPaceProbe({ now: () => 0 });
    try {
      const src = source();
      const reader = sseBody(src.iterable).getReader();
      const events = makeDeltaEvents('resp_1', 0, 50) as StreamEvent[];
      src.push(events[0] as StreamEvent);
      expect(decode((await reader.read()).value)).toBe(encodeSseEvent(events[0] as StreamEvent));
      src.push(...events.slice(1), null);
      await tick();
      expect(decode((await reader.read()).value)).toBe(events.slice(1).map(encodeSseEvent).join(''));
      expect((await reader.read()).done).toBe(true);
    } finally {
      setPaceProbe(null);
    }
  });

  it("sends what a run pushed in one turn as one chunk when it reads an EventQueue's batches", async () => {
    // A message's first token is three events (output_item.added, content_part.added, the delta).
    // Each chunk of a stream moved between workers waits for the reading side's acknowledgement,
    // so three chunks would be three round trips before the page sees the token.
    const [a, b, c] = makeDeltaEvents('resp_1', 0, 3) as StreamEvent[];
    for (const [iterable, chunks] of [
      [(q: EventQueue<StreamEvent>) => q.batches(), 1],
      [(q: EventQueue<StreamEvent>) => q, 3],
    ] as const) {
      const queue = new EventQueue<StreamEvent>();
      const reader = sseBody(iterable(queue)).getReader();
      const first = reader.read();
      await tick(); // the reader is waiting, as a stream's reader is between tokens
      queue.push(a as StreamEvent);
      queue.push(b as StreamEvent);
      queue.push(c as StreamEvent);
      queue.end();
      const got: string[] = [decode((await first).value)];
      for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(decode(r.value));
      expect(got.join('')).toBe([a, b, c].map((e) => encodeSseEvent(e as StreamEvent)).join(''));
      expect(got).toHaveLength(chunks);
    }
  });

  it('reads ahead at most about the coalescing limit', async () => {
    const src = source();
    const events = makeDeltaEvents('resp_1', 0, 5000) as StreamEvent[];
    src.push(...events, null);
    const reader = sseBody(src.iterable).getReader();
    const sizes: number[] = [];
    let text = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      sizes.push(r.value.byteLength);
      text += decode(r.value);
      await tick();
    }
    expect(text).toBe(events.map(encodeSseEvent).join(''));
    const frame = encodeSseEvent(events[4999] as StreamEvent).length;
    expect(Math.max(...sizes)).toBeLessThan(SSE_COALESCE_LIMIT + frame);
    expect(sizes.length).toBeGreaterThan(1);
  });

  // Issue 38, §2: a run's queue hands its whole backlog over as one batch. It was encoded whole into
  // one chunk (a 100k-token stream to a lagging page: a few chunks of megabytes, the backlog held
  // three times over as events, frames and bytes: the worker heap's peak doubled under load).
  it("reads ahead at most about the coalescing limit from an EventQueue's batches too", async () => {
    const queue = new EventQueue<StreamEvent>();
    const events = makeDeltaEvents('resp_1', 0, 5000) as StreamEvent[];
    for (const e of events) queue.push(e);
    queue.end();
    const reader = sseBody(queue.batches()).getReader();
    const sizes: number[] = [];
    let text = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      sizes.push(r.value.byteLength);
      text += decode(r.value);
    }
    expect(text).toBe(events.map(encodeSseEvent).join(''));
    const frame = encodeSseEvent(events[4999] as StreamEvent).length;
    expect(Math.max(...sizes)).toBeLessThan(SSE_COALESCE_LIMIT + frame);
    expect(sizes.length).toBeGreaterThan(1);
  });

  it('delivers the frames before an error, then errors the stream', async () => {
    const src = source();
    const [a] = makeDeltaEvents('resp_1', 0, 1) as StreamEvent[];
    src.push(a as StreamEvent, new Error('engine broke'));
    const reader = sseBody(src.iterable).getReader();
    expect(decode((await reader.read()).value)).toBe(encodeSseEvent(a as StreamEvent));
    await expect(reader.read()).rejects.toThrow('engine broke');
  });

  it('cancelling calls onCancel and closes the source', async () => {
    const src = source();
    const onCancel = vi.fn(() => src.push(null));
    const reader = sseBody(src.iterable, onCancel).getReader();
    src.push(makeDeltaEvents('resp_1', 0, 1)[0] as StreamEvent);
    await reader.read();
    await reader.cancel('gone');
    expect(onCancel).toHaveBeenCalledOnce();
    expect(src.returned).toHaveBeenCalled();
  });
});

describe('EventLog', () => {
  it('writes a fast producer in batches of at most EVENT_LOG_MAX_BATCH, in order', async () => {
    const store = new MemoryStore();
    const append = vi.spyOn(store, 'appendEvents');
    const log = new EventLog(store, 'resp_1', 100);
    const events = makeDeltaEvents('resp_1', 0, EVENT_LOG_MAX_BATCH * 2 + 5);
    for (const e of events) log.add(e as ResponseStreamEvent);
    await log.close();
    expect(append.mock.calls.map(([, batch]) => batch.length)).toEqual([
      EVENT_LOG_MAX_BATCH,
      EVENT_LOG_MAX_BATCH,
      5,
    ]);
    expect(await store.readEvents('resp_1')).toEqual(events);
  });

  it('still writes a snapshot per interval when full batches already took the events', async () => {
    const store = new MemoryStore();
    const put = vi.spyOn(store, 'putResponse');
    const log = new EventLog(store, 'resp_1', 100, () => makeStoredResponse('resp_1'));
    for (const e of makeDeltaEvents('resp_1', 0, EVENT_LOG_MAX_BATCH)) log.add(e);
    await log.close();
    expect(put).toHaveBeenCalledOnce();
    expect(await store.readEvents('resp_1')).toHaveLength(EVENT_LOG_MAX_BATCH);
  });
});
