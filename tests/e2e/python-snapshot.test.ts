/**
 * The sandbox's interpreter snapshot in Chromium, through the real service worker: the first
 * sandbox starts clean and hands its snapshot to the host (Cache Storage); later ones start from
 * it, run code as a clean one does, and are as locked down; a snapshot that does not load (bad
 * magic, another Pyodide build) falls back to a clean start whose fresh snapshot replaces it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSession, openApp } from './harness';
import type { PageRun } from './pages/python-sandbox';

let app: AppSession;

const run = (container: string, code: string): Promise<PageRun> =>
  app.page.evaluate(([c, k]) => window.runPython(c, k), [container, code] as const);
const sha = () => app.page.evaluate(() => window.snapshotSha());

/** Output that depends on the interpreter's state: cwd, env, modules, arithmetic. */
const PROBE =
  'import os, sys, json, zlib\nprint(os.getcwd(), os.environ["HOME"], sys.version_info[:2], json.dumps({"a": [1, 2]}), zlib.crc32(b"intab"), sum(i * i for i in range(1000)))';
let cleanOut = '';

beforeAll(async () => {
  app = await openApp({ path: '/tests/e2e/pages/python-sandbox.html', testPages: true });
}, 240_000);

afterAll(() => app?.close());

describe('the sandbox snapshot in Chromium', () => {
  it('starts the first sandbox clean and keeps its snapshot', async () => {
    expect(await sha()).toBeNull();
    const r = await run('cntr_a', PROBE);
    expect(r.start).toMatchObject({ fromSnapshot: false, snapshotError: null });
    expect(r.stdout).toMatch(/^\/mnt\/data \/mnt\/data \(3, \d+\) \{"a": \[1, 2\]\} \d+ 332833500\n$/);
    cleanOut = r.stdout;
    await run('cntr_a', 'leaked = 1');
    // The host writes it to Cache Storage after the sandbox sends it (bounded by the poll's timeout).
    await expect.poll(sha, { timeout: 30_000 }).toMatch(/^[0-9a-f]{64}$/);
  }, 120_000);

  it('starts the next sandbox from it: the same output, no state of the first, and faster', async () => {
    const r = await run('cntr_b', PROBE);
    expect(r.start).toMatchObject({ fromSnapshot: true, snapshotError: null });
    expect(r.stdout).toBe(cleanOut);
    expect((await run('cntr_b', 'print(leaked)')).stderr).toMatch(/NameError/);
    console.info(
      `snapshot start: ${Math.round(r.start?.loadMs ?? 0)} ms load, ${Math.round(r.ms)} ms first call`,
    );
  }, 120_000);

  it('keeps the CSP and the hardening in a sandbox started from the snapshot', async () => {
    const r = await run(
      'cntr_b',
      'import js\nfor f in (lambda: js.constructor.constructor("return 1")(), lambda: js.postMessage({"id": 1}), lambda: js.indexedDB.open("x")):\n    try:\n        f()\n        print("ESCAPED")\n    except BaseException as e:\n        print("blocked", type(e).__name__)',
    );
    expect(r.stdout).not.toContain('ESCAPED');
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
  }, 60_000);

  for (const kind of ['magic', 'build'] as const)
    it(`falls back to a clean start on a snapshot with a bad ${kind}, and replaces it`, async () => {
      await app.page.evaluate((k) => window.spoilSnapshot(k), kind);
      const bad = await sha();
      const r = await run(`cntr_${kind}`, PROBE);
      expect(r.start?.fromSnapshot).toBe(false);
      expect(r.start?.snapshotError).toMatch(kind === 'magic' ? /magic/ : /build id/);
      expect(r.stdout).toBe(cleanOut);
      await expect.poll(sha, { timeout: 30_000 }).not.toBe(bad);
      const next = await run(`cntr_${kind}2`, PROBE);
      expect(next.start).toMatchObject({ fromSnapshot: true, snapshotError: null });
      expect(next.stdout).toBe(cleanOut);
    }, 180_000);
});
