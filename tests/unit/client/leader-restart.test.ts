/**
 * A follower's call to a leader whose engine worker gets stuck (issue 27, section 5): the leader's
 * tab replaces the worker, and the call that was running on the stuck one ends with a retryable 503
 * (before, a relayed `loadModel` into a stuck worker waited for ever: it has no deadline of its own);
 * the follower's next call runs on the new worker. Real BroadcastChannels (Node's), fake workers.
 *
 * Each step waits for the event it needs (the first answered ping, the load reaching the worker),
 * never a sleep that a loaded machine could outrun, and every bound but the watch's `stuckMs` lies
 * past the test's timeout: only the restart can end the load, and its words say it did.
 */
import type * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { superviseEngine } from '../../../src/client/engine-supervisor';
import type { EngineWorkerHandle } from '../../../src/client/engine-worker-client';
import { LeaderCalls, runCall, serveFollowers } from '../../../src/client/leader-relay';
import type { EngineApi } from '../../../src/worker/protocol';
import { leaderTabs } from '../../helpers/closing-channels';

const tab = leaderTabs();

const never = new Promise<never>(() => {});

/** Past any test's timeout: a bound this long never fires here, so the answer says which one did. */
const NEVER_MS = 600_000;

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * A worker whose pings and loads answer until `stuck` says otherwise (a synchronous loop); `pinged`
 * opens once it answered a ping, `loading` once a load reached it.
 */
function worker(
  name: string,
  stuck: () => boolean,
  seen = { pinged: gate(), loading: gate() },
): EngineWorkerHandle {
  const api = {
    ping: async () => {
      if (stuck()) return never;
      seen.pinged.open();
      return { protocol: 1 };
    },
    loadModel: () => {
      seen.loading.open();
      return never; // a long download: only the worker's replacement ends it
    },
    gpuStatus: async () => (stuck() ? never : { available: false, adapter: name, features: [] }),
  } as unknown as Comlink.Remote<EngineApi>;
  return {
    api,
    connect: () => new MessageChannel().port2,
    worker: Object.assign(new EventTarget(), { terminate: () => {} }) as unknown as Worker,
    url: name,
  };
}

describe("a follower's call when the leader's worker is replaced", () => {
  it('ends with a retryable 503 instead of never, and the next call reaches the new worker', async () => {
    let stuck = false;
    const seen = { pinged: gate(), loading: gate() };
    const workers = [worker('w1', () => stuck, seen), worker('w2', () => false)];
    const engine = superviseEngine({
      start: () => workers.shift() as EngineWorkerHandle,
      stuckMs: 150,
      intervalMs: 10,
    });
    try {
      serveFollowers(tab(), {
        leaderId: 'L1',
        run: (call, onProgress) => engine.run((api) => runCall(api, call, onProgress)),
        handPort: () => {},
      });
      const calls = new LeaderCalls(tab(), NEVER_MS);
      await seen.pinged.opened; // the worker answered a ping: alive, so a silence later is stuck
      const loading = calls
        .call({ method: 'loadModel', modelId: 'm', progress: false })
        .catch((e: unknown) => e as Error);
      await seen.loading.opened; // the leader took the call and it runs on w1
      stuck = true;
      // Ended by the restart (its words), not by another bound or never.
      expect(await loading).toMatchObject({
        status: 503,
        code: 'engine_unavailable',
        message: 'The engine worker stopped answering for 150 ms and was restarted; try again.',
      });
      await expect(calls.call({ method: 'gpuStatus' })).resolves.toMatchObject({ adapter: 'w2' });
    } finally {
      engine.stop();
    }
  });
});
