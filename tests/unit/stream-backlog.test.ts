/**
 * Issue 43, §6: the engine worker's heap per 100k streamed tokens was 30 MB in some bench runs and
 * 42–43 MB in others. A direct stream's events waited for the page in an unbounded queue, and the
 * scripted model writes thousands of tokens a millisecond: how much of the answer sat there, as event
 * objects, depended on how far the page lagged. Now the run waits while the reader lags by more than
 * STREAM_HIGH_WATER events. Counted, not timed: the chunks the engine was asked for while nobody read.
 */
import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/core/http/event-queue';
import { STREAM_HIGH_WATER } from '../../src/core/responses/create-response';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { GenerateRequest } from '../../src/engine/types';
import { BASE, makeRig } from '../helpers/server';

/** The scripted model, counting the chunks the run has taken from it. */
class CountingEngine extends ScriptedEngine {
  taken = 0;
  override async *generate(req: GenerateRequest, signal: AbortSignal) {
    for await (const chunk of super.generate(req, signal)) {
      this.taken++;
      yield chunk;
    }
  }
}

/** Lets the event loop turn until `value()` stops changing across many macrotasks. */
async function settledCount(value: () => number): Promise<number> {
  let last = -1;
  let still = 0;
  while (still < 50) {
    await new Promise((r) => setTimeout(r, 0));
    const now = value();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}

describe('a direct stream whose reader lags', () => {
  it('the run stops taking tokens once STREAM_HIGH_WATER events wait unread, and goes on as the reader reads', async () => {
    const engine = new CountingEngine();
    const { call } = makeRig({ engine });
    const res = await call('POST', '/responses', { model: 'scripted', input: '!words 20000', stream: true });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    // Nobody reads on: the run must stop near the high-water mark, not write all 20,000 words.
    const stalled = await settledCount(() => engine.taken);
    expect(stalled).toBeLessThan(2 * STREAM_HIGH_WATER + 64);
    expect(stalled).toBeLessThan(20_000);
    // Reading on lets it finish: every word arrives, and the stream completes.
    let text = '';
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('event: response.completed');
    expect(engine.taken).toBeGreaterThanOrEqual(20_000);
  });
});

describe('EventQueue.room', () => {
  it('is null under the mark, waits past it, and is released by a read, the end or a reader that leaves', async () => {
    const queue = new EventQueue<number>(3);
    queue.push(1);
    queue.push(2);
    expect(queue.room()).toBeNull();
    queue.push(3);
    const waiting = queue.room();
    expect(waiting).not.toBeNull();
    let released = false;
    void waiting?.then(() => {
      released = true;
    });
    const batches = queue.batches();
    await Promise.resolve();
    expect(released).toBe(false);
    expect((await batches.next()).value).toEqual([1, 2, 3]);
    await Promise.resolve();
    expect(released).toBe(true);

    for (const n of [4, 5, 6]) queue.push(n);
    const afterLeave = queue.room();
    expect(afterLeave).not.toBeNull();
    await batches.return(undefined);
    await afterLeave;
    // The reader has gone: nobody will ever take the backlog, so a producer never waits again.
    queue.push(7);
    expect(queue.room()).toBeNull();

    const ended = new EventQueue<number>(1);
    ended.push(1);
    const onEnd = ended.room();
    ended.end();
    await onEnd;
    expect(ended.room()).toBeNull();
  });
});

describe('a direct stream whose reader stops reading', () => {
  it('an abort ends the run that waits for its reader: stored cancelled, not held', async () => {
    const engine = new CountingEngine();
    const { server, call } = makeRig({ engine });
    const abort = new AbortController();
    const res = await server.fetch(
      new Request(`${BASE}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'scripted', input: '!words 20000', stream: true }),
        signal: abort.signal,
      }),
    );
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const id = /"id":"(resp_[^"]+)"/.exec(first)?.[1] as string;
    expect(id).toBeTruthy();
    // The run is waiting for the reader (it took what the high-water mark allows, then stopped).
    expect(await settledCount(() => engine.taken)).toBeLessThan(20_000);
    // What the service worker does when it gives up on the request (the idle bound does the same).
    abort.abort();
    await expect
      .poll(async () => ((await (await call('GET', `/responses/${id}`)).json()) as { status: string }).status)
      .toBe('cancelled');
  });
});
