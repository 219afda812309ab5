import { resolve } from 'node:path';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOG_BYTES, OVER_MEMORY_NOTE } from '../../../src/sandbox';
import { hardenScope, REMOVED_GLOBALS, runCall } from '../../../src/sandbox/python-runtime';

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
