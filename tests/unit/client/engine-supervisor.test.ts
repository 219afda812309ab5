/**
 * The leading tab's watch over its engine worker (issue 27, section 5): a worker that answers no
 * ping for `stuckMs` is terminated and replaced, the calls that were waiting on it end with a
 * retryable 503 instead of never, and the next call runs on the new worker; a worker that is only
 * busy (it answers late, within the bound) is left alone.
 */
import type * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { superviseEngine } from '../../../src/client/engine-supervisor';
import type { EngineWorkerHandle } from '../../../src/client/engine-worker-client';
import type { EngineApi } from '../../../src/worker/protocol';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fake engine worker: `pingDelay()` says how long its next ping takes (Infinity: stuck). */
function fakeWorker(name: string, pingDelay: () => number) {
  const state = { terminated: false, gpuCalls: 0 };
  const never = new Promise<never>(() => {});
  const api = {
    ping: () => {
      const ms = pingDelay();
      if (state.terminated || ms === Number.POSITIVE_INFINITY) return never;
      return sleep(ms).then(() => ({ protocol: 1 }));
    },
    gpuStatus: async () => {
      state.gpuCalls++;
      if (state.terminated || pingDelay() === Number.POSITIVE_INFINITY) return never;
      return { available: false, adapter: name, features: [] };
    },
  } as unknown as Comlink.Remote<EngineApi>;
  const handle: EngineWorkerHandle = {
    api,
    connect: () => new MessageChannel().port2,
    worker: {
      terminate: () => {
        state.terminated = true;
      },
    } as Worker,
    url: name,
  };
  return { handle, state };
}

/**
 * Watches one worker whose pings take `pingDelay()` ms for `watchMs`: it is never restarted and
 * never terminated.
 */
async function expectKeptAlone(pingDelay: () => number, opts: { stuckMs: number; watchMs: number }) {
  const worker = fakeWorker('w1', pingDelay);
  let starts = 0;
  const engine = superviseEngine({
    start: () => {
      starts++;
      return worker.handle;
    },
    stuckMs: opts.stuckMs,
    intervalMs: 10,
  });
  try {
    await sleep(opts.watchMs);
    expect(starts).toBe(1);
    expect(worker.state.terminated).toBe(false);
  } finally {
    engine.stop();
  }
}

describe('superviseEngine', () => {
  it('replaces a worker that answers no ping for stuckMs, and fails the calls stuck on it', async () => {
    let stuck = false;
    const first = fakeWorker('w1', () => (stuck ? Number.POSITIVE_INFINITY : 1));
    const second = fakeWorker('w2', () => 1);
    const started = [first, second];
    const events: string[] = [];
    const engine = superviseEngine({
      start: () => {
        const next = started.shift();
        if (!next) throw new Error('started a third worker');
        events.push(`start ${next.handle.url}`);
        return next.handle;
      },
      stuckMs: 200,
      intervalMs: 20,
      beforeRestart: async () => {
        events.push('drain');
        await sleep(10);
      },
      onRestart: (h) => events.push(`hand over ${h.url}`),
    });
    try {
      expect((await engine.run((api) => api.gpuStatus())).adapter).toBe('w1');
      await sleep(100); // several answered pings: no replacement while it answers
      expect(events).toEqual(['start w1']);

      stuck = true;
      const t0 = Date.now();
      const waiting = engine.run((api) => api.gpuStatus());
      await expect(waiting).rejects.toMatchObject({
        status: 503,
        code: 'engine_unavailable',
        message: 'The engine worker stopped answering for 200 ms and was restarted; try again.',
      });
      // Found within stuckMs plus one ping interval and the drain, not at some far-off deadline.
      expect(Date.now() - t0).toBeLessThan(200 + 20 + 500);
      expect(first.state.terminated).toBe(true);
      await expect.poll(() => events).toEqual(['start w1', 'drain', 'start w2', 'hand over w2']);
      expect((await engine.run((api) => api.gpuStatus())).adapter).toBe('w2');
      expect(engine.current()).toBe(second.handle);
    } finally {
      engine.stop();
    }
  });

  it('leaves alone a worker that is busy but answers within stuckMs', async () => {
    await expectKeptAlone(() => 120, { stuckMs: 200, watchMs: 600 });
  });

  it('never restarts a worker that has not answered once (a script that failed to load)', async () => {
    await expectKeptAlone(() => Number.POSITIVE_INFINITY, { stuckMs: 50, watchMs: 400 });
  });

  it('does not watch at all with stuckMs 0', async () => {
    let pings = 0;
    const worker = fakeWorker('w1', () => {
      pings++;
      return Number.POSITIVE_INFINITY;
    });
    const engine = superviseEngine({ start: () => worker.handle, stuckMs: 0, intervalMs: 5 });
    try {
      await sleep(100);
      expect(pings).toBe(0);
    } finally {
      engine.stop();
    }
  });

  it('waits for the replacement before running a call made while it starts', async () => {
    let stuck = false;
    const first = fakeWorker('w1', () => (stuck ? Number.POSITIVE_INFINITY : 1));
    const second = fakeWorker('w2', () => 1);
    const queue = [first.handle, second.handle];
    let draining: () => void = () => {};
    const drained = new Promise<void>((r) => {
      draining = r;
    });
    const engine = superviseEngine({
      start: () => queue.shift() as EngineWorkerHandle,
      stuckMs: 100,
      intervalMs: 10,
      beforeRestart: () => drained,
    });
    try {
      await sleep(50); // it answers a ping or two first
      stuck = true;
      await expect.poll(() => first.state.terminated, { timeout: 30_000 }).toBe(true);
      expect(engine.current()).toBeNull();
      const during = engine.run((api) => api.gpuStatus());
      draining();
      expect((await during).adapter).toBe('w2');
    } finally {
      engine.stop();
    }
  });
});
