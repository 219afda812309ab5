/**
 * The leading tab's watch over its engine worker (issue 27, section 5): a worker that answers no
 * ping for `stuckMs` is terminated and replaced, the calls that were waiting on it end with a
 * retryable 503 instead of never, and the next call runs on the new worker; a worker that is only
 * busy (it answers late, within the bound) is left alone.
 *
 * The clock is vitest's: the watch's timers, the fake workers' late pings and `performance.now` move
 * only as each test advances them, so a loaded machine cannot reorder a ping and its deadline.
 */
import type * as Comlink from 'comlink';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { superviseEngine } from '../../../src/client/engine-supervisor';
import type { EngineWorkerHandle } from '../../../src/client/engine-worker-client';
import type { EngineApi } from '../../../src/worker/protocol';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Moves the fake clock on by `ms`, running the timers due and the promises they settle. */
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A fake engine worker: `pingDelay()` says how long its next ping takes (Infinity: stuck). */
function fakeWorker(name: string, pingDelay: () => number) {
  const state = { terminated: false, gpuCalls: 0, pings: 0, answered: 0 };
  const never = new Promise<never>(() => {});
  const api = {
    ping: () => {
      state.pings++;
      const ms = pingDelay();
      if (state.terminated || ms === Number.POSITIVE_INFINITY) return never;
      return sleep(ms).then(() => {
        state.answered++;
        return { protocol: 1 };
      });
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
    // An EventTarget: the watch listens for the `error` event of a script that failed to load.
    worker: Object.assign(new EventTarget(), {
      terminate: () => {
        state.terminated = true;
      },
    }) as unknown as Worker,
    url: name,
  };
  return { handle, state };
}

/**
 * Watches one worker whose pings take `pingDelay()` ms for `watchMs` of the fake clock: it is pinged,
 * yet never restarted nor terminated.
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
    await advance(opts.watchMs);
    expect(worker.state.pings).toBeGreaterThan(1);
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
      await advance(100); // several answered pings: no replacement while it answers
      expect(first.state.answered).toBeGreaterThan(1);
      expect(events).toEqual(['start w1']);

      stuck = true;
      let outcome: unknown = 'pending';
      void engine
        .run((api) => api.gpuStatus())
        .then(
          (status) => {
            outcome = status;
          },
          (err: unknown) => {
            outcome = err;
          },
        );
      // The first unanswered ping went out at most one interval (and a ping's 1 ms) after it stuck:
      // short of stuckMs since, it is still the worker and the call still waits.
      await advance(199);
      expect(outcome).toBe('pending');
      expect(first.state.terminated).toBe(false);
      // Past that ping's stuckMs and the drain: replaced, and the call ended by the restart's words.
      await advance(20 + 1 + 10 + 10);
      expect(outcome).toMatchObject({
        status: 503,
        code: 'engine_unavailable',
        message: 'The engine worker stopped answering for 200 ms and was restarted; try again.',
      });
      expect(first.state.terminated).toBe(true);
      expect(events).toEqual(['start w1', 'drain', 'start w2', 'hand over w2']);
      expect((await engine.run((api) => api.gpuStatus())).adapter).toBe('w2');
      expect(engine.current()).toBe(second.handle);
    } finally {
      engine.stop();
    }
  });

  it('leaves alone a worker that is busy but answers within stuckMs', async () => {
    // It answered its first ping at once (so it counts as alive), then each in 120 ms.
    let pings = 0;
    await expectKeptAlone(() => (pings++ === 0 ? 1 : 120), { stuckMs: 200, watchMs: 600 });
  });

  it('never restarts a worker whose script failed (an error event before any answer)', async () => {
    const worker = fakeWorker('w1', () => Number.POSITIVE_INFINITY);
    let starts = 0;
    const engine = superviseEngine({
      start: () => {
        starts++;
        return worker.handle;
      },
      stuckMs: 50,
      intervalMs: 10,
    });
    try {
      worker.handle.worker.dispatchEvent(new Event('error'));
      await advance(400);
      expect(worker.state.pings).toBeGreaterThan(1);
      expect(starts).toBe(1);
      expect(worker.state.terminated).toBe(false);
    } finally {
      engine.stop();
    }
  });

  // Issue 43: a new worker whose start-up froze (its recovery indexed a file that held it) never
  // answered its first ping, and the watch, counting from a first answer, left it frozen.
  it('restarts a worker that never answered its first ping, counting from its start', async () => {
    const first = fakeWorker('w1', () => Number.POSITIVE_INFINITY);
    const second = fakeWorker('w2', () => Number.POSITIVE_INFINITY);
    const third = fakeWorker('w3', () => 1);
    const started = [first, second, third];
    let outcome: unknown = 'pending';
    const engine = superviseEngine({
      start: () => (started.shift() ?? third).handle,
      stuckMs: 50,
      intervalMs: 10,
    });
    try {
      void engine
        .run((api) => api.gpuStatus())
        .then(
          (v) => (outcome = v),
          (err: unknown) => (outcome = err),
        );
      // Its first ping went out one interval after its start; short of stuckMs since, it stays.
      await advance(10 + 49);
      expect(first.state.terminated).toBe(false);
      await advance(2);
      expect(first.state.terminated).toBe(true);
      expect(outcome).toMatchObject({
        status: 503,
        message: 'The engine worker answered nothing within 50 ms of its start and was restarted; try again.',
      });
      // The replacement is silent too: a slow start, perhaps, so its bound is doubled (not a
      // restart every stuckMs forever).
      await advance(10 + 98); // its ping went out an interval after the first's restart, at 60
      expect(second.state.terminated).toBe(false);
      await advance(2);
      expect(second.state.terminated).toBe(true);
      await advance(10 + 2);
      expect(third.state.answered).toBeGreaterThan(0);
      expect(engine.current()).toBe(third.handle);
      expect((await engine.run((api) => api.gpuStatus())).adapter).toBe('w3');
    } finally {
      engine.stop();
    }
  });

  it('does not watch at all with stuckMs 0', async () => {
    let pings = 0;
    const worker = fakeWorker('w1', () => {
      pings++;
      return Number.POSITIVE_INFINITY;
    });
    const engine = superviseEngine({ start: () => worker.handle, stuckMs: 0, intervalMs: 5 });
    try {
      await advance(100);
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
      await advance(50); // it answers a ping or two first
      expect(first.state.answered).toBeGreaterThan(0);
      stuck = true;
      // Its next ping (at most an interval and 1 ms away) goes unanswered for stuckMs.
      await advance(10 + 1 + 100 + 1);
      expect(first.state.terminated).toBe(true);
      expect(engine.current()).toBeNull();
      const during = engine.run((api) => api.gpuStatus());
      draining();
      expect((await during).adapter).toBe('w2');
    } finally {
      engine.stop();
    }
  });
});
