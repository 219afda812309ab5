/**
 * Follower ⇄ leader calls over a real BroadcastChannel (Node's): answers, progress, and the bounded
 * ends when no leader answers or the leader that took a call goes away.
 */
import type * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { LeaderCalls, serveFollowers } from '../../../src/client/leader-relay';
import { ApiError, serviceUnavailable, toApiErrorData } from '../../../src/common/api-error';
import type { EngineApi, TabMessage } from '../../../src/worker/protocol';
import { leaderTabs } from '../../helpers/closing-channels';

const tab = leaderTabs();

/** The leader's engine worker, as far as relayed calls see it. */
function fakeApi(overrides: Partial<EngineApi> = {}): Comlink.Remote<EngineApi> {
  const api: Partial<EngineApi> = {
    gpuStatus: async () => ({ available: false, adapter: null, features: [], reason: 'test' }),
    loadModel: async (_id, onProgress) => {
      onProgress?.({ progress: 0.5, text: 'half' });
      onProgress?.({ progress: 1, text: 'done' });
    },
    ...overrides,
  };
  return api as unknown as Comlink.Remote<EngineApi>;
}

describe('LeaderCalls with serveFollowers', () => {
  it("answers a follower's gpuStatus from the leader's worker", async () => {
    serveFollowers(tab(), { leaderId: 'L1', api: fakeApi(), handPort: () => {} });
    const calls = new LeaderCalls(tab(), 500);
    await expect(calls.call({ method: 'gpuStatus' })).resolves.toEqual({
      available: false,
      adapter: null,
      features: [],
      reason: 'test',
    });
  });

  it('relays loadModel progress, then resolves', async () => {
    serveFollowers(tab(), { leaderId: 'L1', api: fakeApi(), handPort: () => {} });
    const calls = new LeaderCalls(tab(), 500);
    const seen: string[] = [];
    await calls.call({ method: 'loadModel', modelId: 'm', progress: true }, (p) => seen.push(p.text));
    expect(seen).toEqual(['half', 'done']);
  });

  it("relays a follower's cancelLoad to the leader's worker while the load it stops is relayed too", async () => {
    let stop: (() => void) | null = null;
    const api = fakeApi({
      loadModel: () =>
        new Promise<void>((_, reject) => {
          stop = () =>
            reject(
              toApiErrorData(new ApiError(503, 'server_error', 'model_load_cancelled', null, 'cancelled')),
            );
        }),
      cancelLoad: async (id) => {
        if (id !== 'm' || !stop) return false;
        stop();
        return true;
      },
    });
    serveFollowers(tab(), { leaderId: 'L1', api, handPort: () => {} });
    const calls = new LeaderCalls(tab(), 500);
    const load = calls
      .call({ method: 'loadModel', modelId: 'm', progress: false })
      .catch((e: unknown) => e as ApiError);
    await expect.poll(() => stop !== null).toBe(true);
    await expect(calls.call({ method: 'cancelLoad', modelId: 'm' })).resolves.toBe(true);
    expect(await load).toMatchObject({ status: 503, code: 'model_load_cancelled' });
    await expect(calls.call({ method: 'cancelLoad', modelId: 'other' })).resolves.toBe(false);
  });

  it("rejects with the leader's error as an ApiError", async () => {
    const api = fakeApi({
      loadModel: async () => {
        throw toApiErrorData(serviceUnavailable('WebGPU is not available here.', 'webgpu_unavailable'));
      },
    });
    serveFollowers(tab(), { leaderId: 'L1', api, handPort: () => {} });
    const calls = new LeaderCalls(tab(), 500);
    const err = await calls
      .call({ method: 'loadModel', modelId: 'm', progress: false })
      .catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, code: 'webgpu_unavailable' });
  });

  it('answers 503 when no tab leads', async () => {
    const calls = new LeaderCalls(tab(), 100);
    const err = await calls.call({ method: 'gpuStatus' }).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({ status: 503, code: 'engine_unavailable' });
    expect((err as Error).message).toContain('No tab running the engine answered');
  });

  it('re-sends a call nobody took when a leader announces itself', async () => {
    const calls = new LeaderCalls(tab(), 1_000);
    const pending = calls.call({ method: 'gpuStatus' });
    await new Promise((r) => setTimeout(r, 50));
    serveFollowers(tab(), { leaderId: 'L2', api: fakeApi(), handPort: () => {} });
    await expect(pending).resolves.toMatchObject({ available: false });
  });

  it('fails a call whose leader was replaced mid-call', async () => {
    const never = fakeApi({ loadModel: () => new Promise<void>(() => {}) });
    serveFollowers(tab(), { leaderId: 'L1', api: never, handPort: () => {} });
    const calls = new LeaderCalls(tab(), 500);
    const pending = calls
      .call({ method: 'loadModel', modelId: 'm', progress: false })
      .catch((e: unknown) => e as Error);
    await new Promise((r) => setTimeout(r, 50));
    const next = tab();
    next.postMessage({ type: 'leader', leaderId: 'L2' } satisfies TabMessage);
    const err = await pending;
    expect(err).toMatchObject({ status: 503, code: 'engine_unavailable' });
    expect((err as Error).message).toContain('closed during this call');
  });

  it('runs unanswered calls locally when this tab becomes the leader', async () => {
    const calls = new LeaderCalls(tab(), 1_000);
    const pending = calls.call({ method: 'gpuStatus' });
    calls.leaderChanged('me', async () => 'local answer');
    await expect(pending).resolves.toBe('local answer');
  });

  it('relays a need-port to the leader', async () => {
    let handed = 0;
    serveFollowers(tab(), { leaderId: 'L1', api: fakeApi(), handPort: () => handed++ });
    tab().postMessage({ type: 'need-port' } satisfies TabMessage);
    await expect.poll(() => handed).toBe(1);
  });
});
