import { resolve } from 'node:path';
import { loadPyodide } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SandboxSnapshot, sha256Hex } from '../../../src/sandbox';
import { runCall } from '../../../src/sandbox/python-runtime';
import { type LoadPyodide, startPyodide } from '../../../src/sandbox/python-start';

/**
 * The sandbox's start against a real Pyodide (Node 20): a clean start makes a snapshot before any
 * call; a start from it runs code as a clean one does and holds none of the first sandbox's later
 * state; a corrupt, truncated or foreign snapshot falls back to a clean start that makes a new one.
 */
const indexURL = `${resolve(import.meta.dirname, '../../../node_modules/pyodide')}/`;
const load = loadPyodide as unknown as LoadPyodide;
let snapshot: SandboxSnapshot;
let cleanOut: string;

/** Code whose output depends on the interpreter's state: cwd, modules, env, arithmetic. */
const PROBE =
  'import os, sys, json, zlib\nprint(os.getcwd(), os.environ["HOME"], sys.version_info[:2], json.dumps({"a": [1, 2]}), zlib.crc32(b"intab"), sum(i * i for i in range(1000)))';

const run = async (py: Awaited<ReturnType<typeof startPyodide>>['py'], code: string) =>
  runCall(py, { id: 1, code, files: [] });

/** A copy of the snapshot with `edit` applied and, unless `keepSum`, its checksum made to match. */
async function edited(edit: (b: Uint8Array) => Uint8Array, keepSum = false): Promise<SandboxSnapshot> {
  const bytes = edit(snapshot.bytes.slice());
  return { bytes, sha256: keepSum ? snapshot.sha256 : await sha256Hex(bytes) };
}

beforeAll(async () => {
  const clean = await startPyodide(load, indexURL, { snapshot: null, makeSnapshot: true });
  expect(clean.fromSnapshot).toBe(false);
  expect(clean.snapshot).not.toBeNull();
  snapshot = clean.snapshot as SandboxSnapshot;
  cleanOut = (await run(clean.py, PROBE)).stdout;
  // State made after the snapshot must not be in it.
  await run(clean.py, 'leaked = "from the first sandbox"');
}, 180_000);

describe('startPyodide with snapshots', () => {
  it('makes a checksummed snapshot of a fresh interpreter', async () => {
    expect(snapshot.bytes.length).toBeGreaterThan(1024 * 1024);
    expect(snapshot.sha256).toBe(await sha256Hex(snapshot.bytes));
    expect(cleanOut).toMatch(/^\/mnt\/data \/mnt\/data \(3, \d+\) \{"a": \[1, 2\]\} \d+ 332833500\n$/);
  });

  it('starts from the snapshot, runs code as a clean start does, and holds no later state', async () => {
    const s = await startPyodide(load, indexURL, { snapshot, makeSnapshot: true });
    expect(s).toMatchObject({ fromSnapshot: true, snapshot: null, snapshotError: null });
    expect((await run(s.py, PROBE)).stdout).toBe(cleanOut);
    expect((await run(s.py, 'print(leaked)')).stderr).toMatch(/NameError/);
    await run(s.py, 'x = 41');
    expect((await run(s.py, 'x += 1\nprint(x)')).stdout).toBe('42\n');
  }, 120_000);

  const bad: [string, () => Promise<SandboxSnapshot>, RegExp][] = [
    [
      'a corrupt byte (checksum kept)',
      () => edited((b) => b.fill(7, 1 << 20, (1 << 20) + 64), true),
      /checksum/,
    ],
    ['a truncated snapshot', () => edited((b) => b.slice(0, b.length >> 1), true), /checksum/],
    ['a bad magic number', () => edited((b) => b.fill(0, 0, 4)), /magic/],
    ['another Pyodide build', () => edited((b) => b.fill(0xab, 16, 48)), /build id/],
  ];
  for (const [name, make, why] of bad)
    it(`falls back to a clean start on ${name}, and makes a fresh snapshot`, async () => {
      const s = await startPyodide(load, indexURL, { snapshot: await make(), makeSnapshot: true });
      expect(s.fromSnapshot).toBe(false);
      expect(s.snapshotError).toMatch(why);
      expect((await run(s.py, PROBE)).stdout).toBe(cleanOut);
      expect(s.snapshot?.bytes.length).toBeGreaterThan(1024 * 1024);
    }, 120_000);

  it('makes no snapshot unless asked', async () => {
    const s = await startPyodide(load, indexURL, null);
    expect(s).toMatchObject({ fromSnapshot: false, snapshot: null, snapshotError: null });
  }, 120_000);
});
