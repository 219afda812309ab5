import { resolve } from 'node:path';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOG_BYTES, OVER_MEMORY_NOTE } from '../../../src/sandbox';
import {
  hardenScope,
  MAX_RETURNED_BYTES,
  REMOVED_GLOBALS,
  runCall,
} from '../../../src/sandbox/python-runtime';

/**
 * The sandbox's runtime against a real Pyodide (the npm package's core and standard library, which
 * loads in Node 20 too): logs, state, files under /mnt/data, errors, the log cap, and the hardening.
 */
let py: PyodideAPI;
let n = 0;
const call = (code: string) => runCall(py, { id: ++n, code, files: [] });

beforeAll(async () => {
  py = await loadPyodide({ indexURL: `${resolve(import.meta.dirname, '../../../node_modules/pyodide')}/` });
}, 120_000);

describe('runCall on a real Pyodide', () => {
  it('prints to stdout exactly', async () => {
    expect(await call('print(sum(range(10)))')).toEqual({ id: n, stdout: '45\n', stderr: '', files: [] });
  });

  it('keeps state between calls', async () => {
    await call('counter = 41');
    expect((await call('counter += 1\nprint(counter)')).stdout).toBe('42\n');
  });

  it('puts a traceback in stderr and goes on', async () => {
    const r = await call('print("before")\n1/0');
    expect(r.stdout).toBe('before\n');
    expect(r.stderr).toMatch(/ZeroDivisionError/);
    expect((await call('print("after")')).stdout).toBe('after\n');
  });

  it('returns files the code writes to /mnt/data (a PNG from zlib and struct), and not unchanged ones', async () => {
    const png = `
import zlib, struct
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
raw = b'\\x00\\xff\\x00\\x00'
data = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
open('/mnt/data/dot.png', 'wb').write(data)
`;
    const r = await call(png);
    expect(r.stderr).toBe('');
    expect(r.files.map((f) => f.path)).toEqual(['dot.png']);
    expect([...(r.files[0]?.bytes.subarray(0, 4) ?? [])]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect((await call('print(1)')).files).toEqual([]);
  });

  it('writes the call’s input files before running', async () => {
    const r = await runCall(py, {
      id: ++n,
      code: "print(open('/mnt/data/in/data.csv').read())",
      files: [{ path: 'in/data.csv', bytes: new TextEncoder().encode('a,b') }],
    });
    expect(r.stdout).toBe('a,b\n');
  });

  it('refuses an input path that leaves /mnt/data, and runs no code (issue 38 §3.7)', async () => {
    for (const path of ['../../tmp/pwned.txt', 'a/../../x.py', '/etc/x', 'a//b']) {
      const r = await runCall(py, {
        id: ++n,
        code: 'print("ran")',
        files: [{ path, bytes: new TextEncoder().encode('x') }],
      });
      expect(r.stdout, path).toBe('');
      expect(r.stderr, path).toMatch(/^\[the call did not run: file .* is not a path inside \/mnt\/data\]$/);
    }
    expect((await call("import os; print(os.path.exists('/tmp/pwned.txt'))")).stdout).toBe('False\n');
  });

  it('a file where a folder must go is the call’s error, not a throw (a.txt, then a.txt/b.txt)', async () => {
    const bytes = new TextEncoder().encode('x');
    await runCall(py, { id: ++n, code: '1', files: [{ path: 'clash.txt', bytes }] });
    const r = await runCall(py, {
      id: ++n,
      code: 'print("ran")',
      files: [{ path: 'clash.txt/b.txt', bytes }],
    });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^\[the call did not run: file 'clash\.txt\/b\.txt' could not be written/);
    expect((await call('print("next")')).stdout).toBe('next\n');
  });

  it('walks past a dangling link and a link loop in /mnt/data (neither followed nor returned)', async () => {
    const r = await call(
      "import os\nos.makedirs('/mnt/data/loop', exist_ok=True)\nos.symlink('/nowhere', '/mnt/data/dangling')\nos.symlink('/mnt/data/loop', '/mnt/data/loop/again')\nos.symlink('/mnt/data/self', '/mnt/data/self')\nopen('/mnt/data/real.txt', 'w').write('r')\nprint('done')",
    );
    expect(r.stdout).toBe('done\n');
    expect(r.files.map((f) => f.path)).toEqual(['real.txt']);
    expect((await call('print("after")')).stdout).toBe('after\n');
  });

  it('hands back at most 128 MiB of files from one call; the rest stay in the sandbox, with a note (issue 38 §3.3)', async () => {
    const r = await call(
      "for i in range(10):\n  open(f'/mnt/data/park{i}.bin', 'wb').write(bytes(15 * 1024 * 1024))",
    );
    expect(r.files).toHaveLength(8);
    expect(r.files.reduce((n, f) => n + f.bytes.length, 0)).toBeLessThanOrEqual(MAX_RETURNED_BYTES);
    expect(r.stderr.match(/not returned: the call's files passed/g)).toHaveLength(2);
    await call("import os\nfor i in range(10): os.remove(f'/mnt/data/park{i}.bin')");
  });

  it('caps stdout at 64 KiB however much is printed', async () => {
    const r = await call("for _ in range(20000): print('x' * 100)");
    expect(new TextEncoder().encode(r.stdout).length).toBeLessThan(MAX_LOG_BYTES + 100);
    expect(r.stdout).toMatch(/\[output truncated: \d+ more bytes\]$/);
  });
});

describe('the heap cap', () => {
  it('ends stderr with the over-memory note when the heap is past the cap after a call, not before', async () => {
    const small = await runCall(py, { id: ++n, code: 'print(1)', files: [] }, 1024 * 1024 * 1024);
    expect(small.stderr).toBe('');
    const big = await runCall(
      py,
      { id: ++n, code: 'blob = bytearray(96 * 1024 * 1024)', files: [] },
      64 * 1024 * 1024,
    );
    expect(big.stderr.endsWith(OVER_MEMORY_NOTE)).toBe(true);
  });
});

describe('hardenScope', () => {
  it('shadows every escape hatch with undefined, prototype ones included, and hands back postMessage', () => {
    const sent: unknown[] = [];
    class Proto {
      fetch() {}
      postMessage(m: unknown) {
        sent.push(m);
      }
    }
    const scope = Object.assign(new Proto(), { indexedDB: {}, caches: {} }) as unknown as Record<
      string,
      unknown
    >;
    const post = hardenScope(scope);
    for (const name of REMOVED_GLOBALS) expect(scope[name], name).toBeUndefined();
    expect(() => {
      scope.fetch = () => {};
    }).toThrow();
    post('reply', []);
    expect(sent).toEqual(['reply']);
  });
});
