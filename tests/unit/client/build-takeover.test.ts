/**
 * Issue 43: the leader lock was blind to builds, so after a deploy a new tab followed a leader that
 * ran the previous build's engine worker (whose lazy chunks the deploy no longer has: 503
 * `module_unavailable`). A tab of a newer build, loaded later, now takes the lead over: the old
 * leader's engine ends and it follows; tabs of the same build, and older tabs, follow as before.
 * Real BroadcastChannels (Node's), a Web Locks double with `steal`, fake engine workers.
 */
import type * as Comlink from 'comlink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { followNewestBuild, supersedes } from '../../../src/client/build-takeover';
import { superviseEngine } from '../../../src/client/engine-supervisor';
import { type EngineWorkerHandle, engineWorkerUrl } from '../../../src/client/engine-worker-client';
import { electLeader } from '../../../src/client/leader-election';
import { LeaderCalls, serveFollowers } from '../../../src/client/leader-relay';
import { serviceUnavailable } from '../../../src/common/api-error';
import type { EngineApi, TabBuild } from '../../../src/worker/protocol';
import { leaderTabs } from '../../helpers/closing-channels';

const channel = leaderTabs();

/** One exclusive lock, its queue, and `steal` as Web Locks have it; `release()` ends the holder's tab. */
function locks() {
  type Entry = { grant(): void; fail(err: unknown): void };
  let holder: Entry | null = null;
  const queue: Entry[] = [];
  const request = (name: string, a: unknown, b?: unknown): Promise<unknown> => {
    const callback = (typeof a === 'function' ? a : b) as (lock: unknown) => unknown;
    const steal = typeof a === 'object' && (a as { steal?: boolean }).steal === true;
    return new Promise((resolve, reject) => {
      const entry: Entry = {
        grant: () => {
          holder = entry;
          Promise.resolve(callback({ name, mode: 'exclusive' })).then(resolve, reject);
        },
        fail: reject,
      };
      if (steal) {
        const robbed = holder;
        holder = null;
        robbed?.fail(new DOMException('The lock was stolen.', 'AbortError'));
        entry.grant();
      } else if (holder) queue.push(entry);
      else entry.grant();
    });
  };
  const release = (): void => {
    holder = null;
    queue.shift()?.grant();
  };
  return { manager: { request } as unknown as LockManager, release };
}

/** A tab of `build`, loaded at `since`: it leads with an engine that names itself, as start-intab does. */
function tab(manager: LockManager, name: string, own: TabBuild | null) {
  const ch = channel();
  const calls = new LeaderCalls(ch, 500);
  const seen = { deposed: 0, elected: 0 };
  let serving: { stop(): void } | null = null;
  const election = electLeader(
    manager,
    () => {
      seen.elected++;
      const api = {
        gpuStatus: async () => ({ available: false, adapter: name, features: [] }),
      } as unknown as Comlink.Remote<EngineApi>;
      serving = serveFollowers(ch, {
        leaderId: `${name}-${seen.elected}`,
        api,
        handPort: () => {},
        ...(own ? { build: own } : {}),
      });
    },
    {
      onDeposed: () => {
        seen.deposed++;
        serving?.stop();
      },
    },
  );
  if (own) followNewestBuild(ch, own, election);
  return { election, seen, gpu: () => calls.call({ method: 'gpuStatus' }) as Promise<{ adapter: string }> };
}

const A = (since: number) => ({ build: 'https://app.test/assets/engine-worker-A1.js', since });
const B = (since: number) => ({ build: 'https://app.test/assets/engine-worker-B1.js', since });

describe('a tab of a newer build', () => {
  it('takes the lead over from a leader of the previous build, which stops and follows', async () => {
    const { manager, release } = locks();
    const a1 = tab(manager, 'a1', A(1));
    await a1.election.elected;
    const a2 = tab(manager, 'a2', A(2)); // a second tab of build A follows a1
    await expect(a2.gpu()).resolves.toMatchObject({ adapter: 'a1' });

    const b1 = tab(manager, 'b1', B(3)); // opened after the deploy
    await expect.poll(() => b1.election.isLeader).toBe(true);
    expect([a1.election.isLeader, a1.seen.deposed, a2.election.isLeader]).toEqual([false, 1, false]);
    // Every other tab's calls now reach build B's engine; a1, deposed, answers none.
    await expect.poll(() => a2.gpu().then((s) => s.adapter)).toBe('b1');
    await expect(a1.gpu()).resolves.toMatchObject({ adapter: 'b1' });

    // A later tab of build B follows b1; a1 and a2 do not take the lead back.
    const b2 = tab(manager, 'b2', B(4));
    await expect(b2.gpu()).resolves.toMatchObject({ adapter: 'b1' });
    expect([b1.election.isLeader, b2.election.isLeader, a1.seen.elected, a2.seen.elected]).toEqual([
      true,
      false,
      1,
      0,
    ]);

    // b1 closes: a2 (queued first) leads build A's engine again, and b2, newer, takes it over.
    release();
    await expect.poll(() => b2.election.isLeader).toBe(true);
    expect(a2.seen).toEqual({ elected: 1, deposed: 1 });
    await expect.poll(() => a1.gpu().then((s) => s.adapter)).toBe('b2');
  });

  it('follows a leader of its own build', async () => {
    const { manager } = locks();
    const b1 = tab(manager, 'b1', B(1));
    await b1.election.elected;
    const b2 = tab(manager, 'b2', B(2));
    await expect(b2.gpu()).resolves.toMatchObject({ adapter: 'b1' });
    expect([b1.election.isLeader, b2.election.isLeader, b1.seen.deposed]).toEqual([true, false, 0]);
  });

  it('follows a leader from an intab that says no build, as before', async () => {
    const { manager } = locks();
    const old = tab(manager, 'old', null);
    await old.election.elected;
    const newer = tab(manager, 'newer', B(5));
    await expect(newer.gpu()).resolves.toMatchObject({ adapter: 'old' });
    expect([newer.election.isLeader, old.election.isLeader]).toEqual([false, true]);
  });

  it('takes over only when it loaded later, so two builds never take it in turns', () => {
    expect(supersedes(B(2), A(1))).toBe(true);
    expect(supersedes(A(1), B(2))).toBe(false);
    expect(supersedes(A(3), A(1))).toBe(false);
    expect(supersedes(B(2), { build: A(1).build })).toBe(false);
  });
});

describe('a deposed leader’s engine', () => {
  it('ends: the call running on it and every later one reject, and its worker is terminated', async () => {
    let terminated = 0;
    const handle = {
      api: { ping: async () => ({ protocol: 1 }), loadModel: () => new Promise(() => {}) },
      connect: () => new MessageChannel().port2,
      // The supervisor listens for the worker's load errors (its watchdog); none comes here.
      worker: { terminate: () => terminated++, addEventListener: () => {} },
      url: 'w',
    } as unknown as EngineWorkerHandle;
    const engine = superviseEngine({ start: () => handle, stuckMs: 0 });
    const loading = engine.run((api) => api.loadModel('m')).catch((e: unknown) => e);
    await Promise.resolve();
    engine.end(serviceUnavailable('A tab of a newer build of this app runs the engine now; retry.'));
    expect(await loading).toMatchObject({ status: 503 });
    await expect(engine.run((api) => api.ping())).rejects.toMatchObject({ status: 503 });
    expect([terminated, engine.current()]).toEqual([1, null]);
  });
});

describe('engineWorkerUrl', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('names the script the bundled worker would start from, starting none', () => {
    vi.stubGlobal('location', { href: 'https://app.test/chat' });
    const started = vi.fn();
    const Native = function (this: unknown) {
      started();
    };
    vi.stubGlobal('Worker', Native);
    expect(engineWorkerUrl()).toMatch(/\/src\/worker\/engine-worker\.ts$/);
    expect(engineWorkerUrl('/engine-worker.js')).toBe('https://app.test/engine-worker.js');
    expect([started.mock.calls.length, globalThis.Worker]).toEqual([0, Native]);
  });
});
