/**
 * Issue 15, class 14: an SSE body whose reader stops reading (the service worker reading it was
 * stopped mid-stream, and Chromium tells the worker's stream nothing) is given up on after `idleMs`.
 */
import { describe, expect, it, vi } from 'vitest';
import { sseBody } from '../../src/core/plumbing/sse-body';
import type { StreamEvent } from '../../src/core/responses/response-run';
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sseBody with idleMs', () => {
  it('gives up on a reader that stopped reading while events wait, and stays readable', async () => {
    const src = producer(5);
    const onCancel = vi.fn(() => src.stop());
    const reader = sseBody(src.iterable, onCancel, { idleMs: 150 }).getReader();
    expect((await reader.read()).done).toBe(false);
    await sleep(100);
    expect(onCancel).not.toHaveBeenCalled();
    await expect.poll(() => onCancel.mock.calls.length, { timeout: 1000, interval: 10 }).toBe(1);
    // A reader that comes back reads what was produced, up to the end the producer gave it.
    let chunks = 0;
    for (;;) {
      const { done } = await reader.read();
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
    const end = Date.now() + 600;
    while (Date.now() < end) {
      await reader.read();
      await sleep(60);
    }
    expect(onCancel).not.toHaveBeenCalled();
    await reader.cancel();
  });

  it('waits for ever without idleMs', async () => {
    const src = producer(2);
    const onCancel = vi.fn();
    const reader = sseBody(src.iterable, onCancel).getReader();
    await reader.read();
    await sleep(300);
    expect(onCancel).not.toHaveBeenCalled();
    await reader.cancel();
    expect(onCancel).toHaveBeenCalledTimes(1);
  });
});
