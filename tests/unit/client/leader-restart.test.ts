/**
 * A follower's call to a leader whose engine worker gets stuck (issue 27, section 5): the leader's
 * tab replaces the worker, and the call that was running on the stuck one ends with a retryable 503
 * (before, a relayed `loadModel` into a stuck worker waited for ever: it has no deadline of its own);
 * the follower's next call runs on the new worker. Real BroadcastChannels (Node's), fake workers.
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

/** A worker whose pings and loads answer until `stuck` says otherwise (a synchronous loop). */
function worker(name: string, stuck: () => boolean): EngineWorkerHandle {
  const api = {
    ping: async () => (stuck() ? never : { protocol: 1 }),
    loadModel: () => never, // a long download: only the worker's replacement ends it
    gpuStatus: async () => (stuck() ? never : { available: false, adapter: name, features: [] }),
  } as unknown as Comlink.Remote<EngineApi>;
  return {
    api,
    connect: () => new MessageChannel().port2,
    worker: { terminate: () => {} } as Worker,
    url: name,
  };
}

describe("a follower's call when the leader's worker is replaced", () => {
  it('ends with a retryable 503 instead of never, and the next call reaches the new worker', async () => {
    let stuck = false;
    const workers = [worker('w1', () => stuck), worker('w2', () => false)];
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
      const calls = new LeaderCalls(tab(), 500);
      await new Promise((r) => setTimeout(r, 50)); // the worker answered its first pings
      const loading = calls
        .call({ method: 'loadModel', modelId: 'm', progress: false })
        .catch((e: unknown) => e as Error);
      await new Promise((r) => setTimeout(r, 50));
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
