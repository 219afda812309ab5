import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_LIVE_SANDBOXES,
  readSandboxStarted,
  SandboxHost,
  type SandboxSnapshot,
  type SnapshotStore,
  SPARE_IDLE_MS,
} from '../../../src/sandbox';
import { SandboxWorkerDouble } from '../../helpers/sandbox-double';

/** A snapshot store in memory that records what the host did with it. */
class MemoryStore implements SnapshotStore {
  puts: SandboxSnapshot[] = [];
  drops = 0;
  constructor(
    public kept: SandboxSnapshot | null = null,
    private readonly fail = false,
  ) {}
  async get() {
    if (this.fail) throw new Error('no Cache Storage');
    return this.kept && { bytes: this.kept.bytes.slice(), sha256: this.kept.sha256 };
  }
  async put(s: SandboxSnapshot) {
    this.puts.push(s);
    this.kept = s;
  }
  async drop() {
    this.drops++;
    this.kept = null;
  }
}

const SNAP: SandboxSnapshot = { bytes: new Uint8Array([1, 2, 3]), sha256: 'a'.repeat(64) };
const started = (over: object = {}) => ({
  started: { fromSnapshot: false, snapshot: null, snapshotError: null, loadMs: 5, ...over },
});

function hostWith(snapshots?: SnapshotStore) {
  const workers: SandboxWorkerDouble[] = [];
  const starts: unknown[] = [];
  const host = new SandboxHost({
    startWorker: () => {
      const w = new SandboxWorkerDouble(() => ({ stdout: 'ok\n' }));
      workers.push(w);
      return w;
    },
    timeoutMs: 1_000,
    loadTimeoutMs: 0,
    snapshots,
    onStart: (info) => starts.push(info),
  });
  return { host, workers, starts };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => vi.useRealTimers());

describe('SandboxHost and the interpreter snapshot', () => {
  it('sends the kept snapshot as the init, before the first call', async () => {
    const { host, workers } = hostWith(new MemoryStore(SNAP));
    const run = host.run('cntr_a', 'print(1)', []);
    const w = workers[0] as SandboxWorkerDouble;
    // The call waits for the init, which waits for the store.
    expect(w.calls).toHaveLength(0);
    expect(await run).toMatchObject({ stdout: 'ok\n', failed: null });
    expect(w.inits).toEqual([{ init: { snapshot: SNAP, makeSnapshot: true } }]);
    expect(w.calls.map((c) => c.code)).toEqual(['print(1)']);
  });

  it('starts clean, asking for a snapshot, when the store has none or fails', async () => {
    for (const store of [new MemoryStore(), new MemoryStore(SNAP, true)]) {
      const { host, workers } = hostWith(store);
      await host.run('cntr_a', 'print(1)', []);
      expect(workers[0]?.inits).toEqual([{ init: { snapshot: null, makeSnapshot: true } }]);
    }
  });

  it('sends a clean init with no store, and asks for no snapshot', async () => {
    const { host, workers } = hostWith();
    await host.run('cntr_a', 'print(1)', []);
    expect(workers[0]?.inits).toEqual([{ init: { snapshot: null, makeSnapshot: false } }]);
  });

  it('keeps the fresh snapshot a clean start sends, and reports the start', async () => {
    const store = new MemoryStore();
    const { host, workers, starts } = hostWith(store);
    host.prewarm();
    await tick();
    workers[0]?.forge(started({ snapshot: SNAP }));
    await tick();
    expect(store.puts).toEqual([SNAP]);
    expect(starts).toEqual([{ fromSnapshot: false, snapshotError: null, loadMs: 5 }]);
  });

  it('drops a snapshot that failed to load when no fresh one replaces it', async () => {
    const store = new MemoryStore(SNAP);
    const { host, workers } = hostWith(store);
    host.prewarm();
    await tick();
    workers[0]?.forge(started({ snapshotError: 'Snapshot has invalid magic number' }));
    await tick();
    expect(store.drops).toBe(1);
    expect(store.kept).toBeNull();
  });

  it('takes the start report once, before any reply: a later or malformed one is ignored', async () => {
    const store = new MemoryStore();
    const { host, workers } = hostWith(store);
    await host.run('cntr_a', 'print(1)', []);
    const w = workers[0] as SandboxWorkerDouble;
    w.forge(started({ snapshot: SNAP }));
    await tick();
    expect(store.puts).toEqual([]);
    expect(readSandboxStarted({ ...started(), extra: 1 })).toBeNull();
    expect(readSandboxStarted(started({ snapshot: { bytes: 'x', sha256: 'a'.repeat(64) } }))).toBeNull();
    expect(
      readSandboxStarted(started({ snapshot: { bytes: new Uint8Array(1), sha256: 'nothex' } })),
    ).toBeNull();
    expect(readSandboxStarted(started({ injected: true }))).toBeNull();
    expect(readSandboxStarted(started({ snapshot: SNAP }))).toEqual(started({ snapshot: SNAP }));
  });
});

describe('SandboxHost.prewarm', () => {
  it('starts nothing until asked: constructing the host starts no sandbox', () => {
    const { host, workers } = hostWith(new MemoryStore());
    expect(workers).toHaveLength(0);
    expect(host.alive).toBe(0);
  });

  it('starts one spare, which the next new container takes', async () => {
    const { host, workers } = hostWith();
    host.prewarm();
    host.prewarm();
    expect(workers).toHaveLength(1);
    expect(workers[0]?.inits).toHaveLength(1);
    expect(host.alive).toBe(1);
    expect(await host.run('cntr_a', 'print(1)', [])).toMatchObject({ stdout: 'ok\n' });
    expect(workers).toHaveLength(1);
    expect(workers[0]?.calls.map((c) => c.code)).toEqual(['print(1)']);
  });

  it('starts none for a container whose sandbox runs, nor past the cap', async () => {
    const { host, workers } = hostWith();
    await host.run('cntr_a', '1', []);
    host.prewarm('cntr_a');
    expect(workers).toHaveLength(1);
    await host.run('cntr_b', '1', []);
    host.prewarm();
    expect(workers).toHaveLength(MAX_LIVE_SANDBOXES);
    expect(host.alive).toBe(MAX_LIVE_SANDBOXES);
  });

  it('stops a spare no container took after SPARE_IDLE_MS', () => {
    vi.useFakeTimers();
    const { host, workers } = hostWith();
    host.prewarm();
    vi.advanceTimersByTime(SPARE_IDLE_MS - 1);
    expect(workers[0]?.terminated).toBe(false);
    vi.advanceTimersByTime(1);
    expect(workers[0]?.terminated).toBe(true);
    expect(host.alive).toBe(0);
  });
});
