import { describe, expect, it } from 'vitest';
import {
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

  it('a cancelled call ends failed at once and stops the sandbox', async () => {
    const { host, workers } = hostWith(() => 'hang', 10_000);
    const ac = new AbortController();
    const pending = host.run('cntr_a', 'while True: pass', [], ac.signal);
    ac.abort();
    expect((await pending).failed).toMatch(/stopped/);
    expect(workers[0]?.terminated).toBe(true);
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
