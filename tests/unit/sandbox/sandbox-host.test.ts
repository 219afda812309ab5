import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  FILES_NOT_WRITTEN,
  MAX_LIVE_SANDBOXES,
  MAX_LOG_BYTES,
  OVER_MEMORY_NOTE,
  readSandboxReply,
  SandboxHost,
  truncateLog,
} from '../../../src/sandbox';
import { SandboxWorkerDouble } from '../../helpers/sandbox-double';

/** A host over doubles, keeping every worker it started. */
function hostWith(answer: ConstructorParameters<typeof SandboxWorkerDouble>[0], timeoutMs = 50) {
  const workers: SandboxWorkerDouble[] = [];
  const host = new SandboxHost({
    startWorker: () => {
      const w = new SandboxWorkerDouble(answer);
      workers.push(w);
      return w;
    },
    timeoutMs,
    loadTimeoutMs: 0,
  });
  return { host, workers };
}

describe('SandboxHost', () => {
  it('runs a call and keeps one worker per container', async () => {
    const { host, workers } = hostWith(() => ({ stdout: '45\n' }));
    const run = await host.run('cntr_a', 'print(sum(range(10)))', []);
    expect(run).toEqual({ stdout: '45\n', stderr: '', files: [], failed: null });
    await host.run('cntr_a', 'x = 1', []);
    expect(workers).toHaveLength(1);
    expect(workers[0]?.calls.map((c) => c.code)).toEqual(['print(sum(range(10)))', 'x = 1']);
  });

  it('ends a call that runs past the wall time failed, terminates the worker, and the next call gets a fresh one', async () => {
    const { host, workers } = hostWith((code) => (code.includes('while True') ? 'hang' : { stdout: 'ok\n' }));
    const run = await host.run('cntr_a', 'while True: pass', []);
    // Bound: the 50 ms timeout, as the failure says; a missing timeout would hang until the test's
    // own limit (minutes).
    expect(run.failed).toMatch(/timed out after 50 ms/);
    expect(workers[0]?.terminated).toBe(true);
    const next = await host.run('cntr_a', 'print("ok")', []);
    expect(next).toMatchObject({ stdout: 'ok\n', failed: null });
    expect(workers).toHaveLength(2);
  });

  it('ignores forged replies: wrong id, extra keys, wrong types; only the exact reply to a pending call counts', async () => {
    const { host, workers } = hostWith(() => 'hang', 200);
    const pending = host.run('cntr_a', 'print(1)', []);
    const w = workers[0] as SandboxWorkerDouble;
    const id = w.calls[0]?.id as number;
    w.forge({ id: id + 1, stdout: 'forged', stderr: '', files: [] });
    w.forge({ id, stdout: 'forged', stderr: '', files: [], type: 'response' });
    w.forge({ id, stdout: 1, stderr: '', files: [] });
    w.forge({ id, stdout: 'x', stderr: '', files: [{ path: 'a', bytes: 'not bytes' }] });
    w.forge('{"id":1}');
    w.forge({ id, stdout: 'real\n', stderr: '', files: [] });
    expect(await pending).toMatchObject({ stdout: 'real\n', failed: null });
  });

  it('keeps at most two sandboxes alive, stopping the least recently used idle one', async () => {
    const { host, workers } = hostWith(() => ({}));
    await host.run('cntr_a', '1', []);
    await host.run('cntr_b', '1', []);
    await host.run('cntr_a', '1', []);
    await host.run('cntr_c', '1', []);
    expect(MAX_LIVE_SANDBOXES).toBe(2);
    expect(host.alive).toBe(2);
    expect(workers.map((w) => w.terminated)).toEqual([false, true, false]);
  });

  it('a reply whose heap went past the cap ends the call failed and stops the sandbox; the next call gets a fresh one', async () => {
    const { host, workers } = hostWith((code) =>
      code === 'big' ? { stderr: `x\n${OVER_MEMORY_NOTE}` } : { stdout: 'ok\n' },
    );
    const run = await host.run('cntr_a', 'big', []);
    expect(run.failed).toBe(OVER_MEMORY_NOTE);
    expect(workers[0]?.terminated).toBe(true);
    expect(await host.run('cntr_a', 'small', [])).toMatchObject({ stdout: 'ok\n', failed: null });
    expect(workers).toHaveLength(2);
  });

  it('a call whose input files could not be written ends failed with the sandbox’s reason', async () => {
    const why = `${FILES_NOT_WRITTEN} 'a.txt/b.txt' could not be written to /mnt/data (ENOTDIR)]`;
    const { host } = hostWith(() => ({ stdout: 'no', stderr: why }));
    expect(await host.run('cntr_a', '1', [])).toMatchObject({ failed: why, files: [] });
  });

  it('a cancelled call ends failed at once and stops the sandbox', async () => {
    const { host, workers } = hostWith(() => 'hang', 10_000);
    const ac = new AbortController();
    const pending = host.run('cntr_a', 'while True: pass', [], ac.signal);
    ac.abort();
    expect((await pending).failed).toMatch(/stopped/);
    expect(workers[0]?.terminated).toBe(true);
  });
});

/** Answers the pending call `w` was sent `n`th, as the real sandbox would. */
function reply(w: SandboxWorkerDouble | undefined, n = 0, stdout = 'ok\n'): void {
  w?.forge({ id: w.calls[n]?.id, stdout, stderr: '', files: [] });
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('SandboxHost limits that hold (issue 38 §3.5)', () => {
  afterEach(() => vi.useRealTimers());

  it("times a first call from when its sandbox reports started, not from before Pyodide's load", async () => {
    vi.useFakeTimers();
    const workers: SandboxWorkerDouble[] = [];
    const host = new SandboxHost({
      startWorker: () => {
        const w = new SandboxWorkerDouble(() => 'hang');
        workers.push(w);
        return w;
      },
      timeoutMs: 50,
      loadTimeoutMs: 10_000,
    });
    let run: Awaited<ReturnType<typeof host.run>> | null = null;
    void host.run('cntr_a', 'while True: pass', []).then((r) => {
      run = r;
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(run).toBeNull();
    workers[0]?.forge({
      started: { fromSnapshot: false, snapshot: null, snapshotError: null, loadMs: 5_000 },
    });
    await vi.advanceTimersByTimeAsync(49);
    expect(run).toBeNull();
    await vi.advanceTimersByTimeAsync(2);
    expect(run).toMatchObject({ failed: expect.stringMatching(/timed out after 50 ms/) });
    expect(workers[0]?.terminated).toBe(true);
  });

  it('runs at most two sandboxes at once however many first calls arrive: the others wait their turn', async () => {
    const { host, workers } = hostWith(() => 'hang', 60_000);
    const runs = ['cntr_a', 'cntr_b', 'cntr_c', 'cntr_d'].map((c) => host.run(c, `print("${c}")`, []));
    await settle();
    expect(workers).toHaveLength(2);
    expect(workers.map((w) => w.calls.length)).toEqual([1, 1]);
    reply(workers[0]);
    expect(await runs[0]).toMatchObject({ stdout: 'ok\n', failed: null });
    await settle();
    // a's sandbox was idle: it made way for c's; d still waits.
    expect(workers).toHaveLength(3);
    expect(workers[0]?.terminated).toBe(true);
    expect(workers[2]?.calls.map((c) => c.code)).toEqual(['print("cntr_c")']);
    expect(host.alive).toBe(2);
    reply(workers[1]);
    reply(workers[2]);
    await settle();
    expect(workers).toHaveLength(4);
    reply(workers[3]);
    expect((await Promise.all(runs)).map((r) => r.failed)).toEqual([null, null, null, null]);
  });

  it("runs one container's calls one at a time, each timed on its own; a queued call can be cancelled", async () => {
    const { host, workers } = hostWith(() => 'hang', 60_000);
    const first = host.run('cntr_a', 'first', []);
    const second = host.run('cntr_a', 'second', []);
    const ac = new AbortController();
    const third = host.run('cntr_b', 'b', []);
    const fourth = host.run('cntr_c', 'c', [], ac.signal);
    await settle();
    expect(workers[0]?.calls.map((c) => c.code)).toEqual(['first']);
    ac.abort();
    expect((await fourth).failed).toMatch(/cancelled/);
    expect(workers).toHaveLength(2);
    reply(workers[0], 0);
    await first;
    await settle();
    expect(workers[0]?.calls.map((c) => c.code)).toEqual(['first', 'second']);
    reply(workers[0], 1);
    reply(workers[1], 0);
    expect((await second).failed).toBeNull();
    expect((await third).failed).toBeNull();
  });
});

describe('sandbox protocol', () => {
  it('truncates logs at 64 KiB with a note', () => {
    const cut = truncateLog('é'.repeat(MAX_LOG_BYTES));
    expect(new TextEncoder().encode(cut).length).toBeLessThan(MAX_LOG_BYTES + 100);
    expect(cut).toMatch(/\[output truncated: \d+ more bytes\]$/);
    expect(truncateLog('45\n')).toBe('45\n');
  });

  it('reads only replies to pending ids', () => {
    const ok = { id: 7, stdout: '', stderr: '', files: [{ path: 'a.png', bytes: new Uint8Array(1) }] };
    expect(readSandboxReply(ok, new Set([7]))).toEqual(ok);
    expect(readSandboxReply(ok, new Set([8]))).toBeNull();
    expect(readSandboxReply(null, new Set([7]))).toBeNull();
  });
});
