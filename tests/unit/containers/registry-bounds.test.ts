/**
 * The container registry's bounds (issue 38 §3.3, §3.7, §3.8): file names stay inside /mnt/data,
 * a path is a file or a folder, bytes are bounded per container and in all, a container at its
 * file cap fails the call (not the response), and an auto container never evicts one the app made.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import {
  CONTAINER_BUDGETS,
  ContainerRegistry,
  MAX_CONTAINER_FILES,
  MAX_CONTAINERS,
} from '../../../src/core/containers';
import type { ContainerFileBytes, PythonRunResult } from '../../../src/core/hosted';

/** A runner that writes what it is told to and records the uploads each call got. */
function fakeRunner() {
  const calls: { container: string; files: ContainerFileBytes[] }[] = [];
  const stopped: string[] = [];
  let writes: ContainerFileBytes[] = [];
  return {
    calls,
    stopped,
    willWrite(files: ContainerFileBytes[]) {
      writes = files;
    },
    runner: {
      async run(container: string, _code: string, files: ContainerFileBytes[]): Promise<PythonRunResult> {
        calls.push({ container, files });
        const out = writes;
        writes = [];
        return { stdout: 'ok\n', stderr: '', files: out, failed: null };
      },
      stop(id: string) {
        stopped.push(id);
      },
    },
  };
}

function refusal(work: () => unknown): ApiError {
  try {
    work();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a 400');
}

const bytes = (n: number) => new Uint8Array(n);
const signal = new AbortController().signal;

describe('container files stay inside /mnt/data', () => {
  it('refuses names that leave it, with a 400 on file, and normalises the rest', () => {
    const reg = new ContainerRegistry(fakeRunner().runner);
    const { id } = reg.create({ name: 'c' });
    for (const name of [
      '../../tmp/pwned.txt',
      'a/../../x',
      '/mnt/data/../etc/passwd',
      '..',
      '',
      '/',
      'a\\b',
      'x\0y',
    ]) {
      const err = refusal(() => reg.addFile(id, name, bytes(1), 'user'));
      expect(err.status, name).toBe(400);
      expect(err.param, name).toBe('file');
    }
    expect(reg.addFile(id, '/mnt/data/./in//a.csv', bytes(1), 'user').path).toBe('/mnt/data/in/a.csv');
    expect(reg.addFile(id, '/b.txt', bytes(1), 'user').path).toBe('/mnt/data/b.txt');
    expect(reg.files(id)).toHaveLength(2);
  });

  it('refuses a file where another file is a folder, and the other way round (a.txt, then a.txt/b.txt)', () => {
    const reg = new ContainerRegistry(fakeRunner().runner);
    const { id } = reg.create({ name: 'c' });
    reg.addFile(id, 'a.txt', bytes(1), 'user');
    expect(refusal(() => reg.addFile(id, 'a.txt/b.txt', bytes(1), 'user')).message).toMatch(
      /file or a folder/,
    );
    reg.addFile(id, 'd/e.txt', bytes(1), 'user');
    expect(refusal(() => reg.addFile(id, 'd', bytes(1), 'user')).param).toBe('file');
    // Replacing a file by its own path is no clash.
    expect(reg.addFile(id, 'a.txt', bytes(2), 'user').bytes).toBe(2);
  });
});

describe('container bytes are bounded', () => {
  it('per container and in all, counting replacements and deletions', () => {
    const reg = new ContainerRegistry(fakeRunner().runner);
    const a = reg.create({ name: 'a' }).id;
    const half = CONTAINER_BUDGETS.maxBytesPerContainer / 2;
    reg.addFile(a, 'one', bytes(half), 'user');
    reg.addFile(a, 'two', bytes(half), 'user');
    const over = refusal(() => reg.addFile(a, 'three', bytes(1), 'user'));
    expect(over.code).toBe('file_too_large');
    expect(over.message).toMatch(/128 MiB/);
    // Replacing a file counts only what it grows by; deleting frees its bytes.
    reg.addFile(a, 'two', bytes(half - 10), 'user');
    reg.addFile(a, 'three', bytes(10), 'user');
    reg.deleteFile(a, reg.files(a).find((f) => f.path === '/mnt/data/three')?.id as string);
    reg.addFile(a, 'four', bytes(10), 'user');
    // All containers together: a second one fills the rest, a third is refused.
    const b = reg.create({ name: 'b' }).id;
    reg.addFile(
      b,
      'x',
      bytes(CONTAINER_BUDGETS.maxBytesTotal - CONTAINER_BUDGETS.maxBytesPerContainer),
      'user',
    );
    const c = reg.create({ name: 'c' }).id;
    expect(refusal(() => reg.addFile(c, 'y', bytes(1), 'user')).message).toMatch(/All containers together/);
    // A deleted container gives its bytes back.
    reg.delete(b);
    expect(reg.addFile(c, 'y', bytes(1), 'user').bytes).toBe(1);
  });

  it('files code writes past the bounds fail the call, and the response goes on', async () => {
    const fake = fakeRunner();
    const reg = new ContainerRegistry(fake.runner);
    const id = reg.create({ name: 'c' }).id;
    fake.willWrite([
      { path: 'big1', bytes: bytes(CONTAINER_BUDGETS.maxBytesPerContainer / 2) },
      { path: 'big2', bytes: bytes(CONTAINER_BUDGETS.maxBytesPerContainer / 2) },
      { path: 'big3', bytes: bytes(1024) },
    ]);
    const run = await reg.run(id, 'park()', signal);
    expect(run.failed).toMatch(/not kept.*big3.*128 MiB/);
    expect(
      reg
        .files(id)
        .map((f) => f.path)
        .sort(),
    ).toEqual(['/mnt/data/big1', '/mnt/data/big2']);
  });
});

describe('a container at its file cap', () => {
  it('fails the call that writes one more file instead of throwing out of the response', async () => {
    const fake = fakeRunner();
    const reg = new ContainerRegistry(fake.runner);
    const id = reg.create({ name: 'c' }).id;
    for (let i = 0; i < MAX_CONTAINER_FILES; i++) reg.addFile(id, `f${i}`, bytes(1), 'user');
    fake.willWrite([{ path: 'one-more.txt', bytes: bytes(1) }]);
    const run = await reg.run(id, 'write()', signal);
    expect(run.failed).toMatch(/one-more\.txt.*at most 256 files/);
    expect(run.stdout).toBe('ok\n');
  });

  it('fails the call for a path a forged reply names outside /mnt/data', async () => {
    const fake = fakeRunner();
    const reg = new ContainerRegistry(fake.runner);
    const id = reg.create({ name: 'c' }).id;
    fake.willWrite([{ path: '../../tmp/x', bytes: bytes(1) }]);
    expect((await reg.run(id, '1', signal)).failed).toMatch(/not kept/);
    expect(reg.files(id)).toEqual([]);
  });
});

describe('auto containers past the most containers', () => {
  it('evict only auto containers; when every container is the app’s, the response is refused and none is lost', () => {
    const fake = fakeRunner();
    let now = 1_000_000;
    const reg = new ContainerRegistry(fake.runner, () => now);
    const auto = reg.containerFor({ type: 'auto' }, 'tools[0].container', null);
    const made: string[] = [];
    for (let i = 1; i < MAX_CONTAINERS; i++) {
      now += 1000;
      made.push(reg.create({ name: `app${i}` }).id);
    }
    now += 1000;
    // The auto one is the oldest, but even a newer auto one goes before any app container.
    reg.get(auto);
    const next = reg.containerFor({ type: 'auto' }, 'tools[0].container', null);
    expect(fake.stopped).toEqual([auto]);
    expect(reg.list().map((c) => c.id)).toEqual(expect.arrayContaining(made));
    reg.delete(next);
    reg.create({ name: 'app-last' });
    const err = refusal(() => reg.containerFor({ type: 'auto' }, 'tools[0].container', null));
    expect(err.param).toBe('tools[0].container');
    expect(err.message).toMatch(/made by the app/);
    expect(reg.list()).toHaveLength(MAX_CONTAINERS);
  });
});
