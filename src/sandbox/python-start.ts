/**
 * How the sandbox starts Pyodide, apart from the worker so Node tests run it against a real
 * Pyodide: from a snapshot when one is given and loads, else clean (and then, when asked, making a
 * snapshot before any call runs). See snapshot.ts for why.
 */
import type { PyodideAPI } from 'pyodide';
import { DATA_DIR } from './protocol';
import { checkedSnapshot, type SandboxInit, type SandboxSnapshot, sha256Hex } from './snapshot';

/** `loadPyodide` from `pyodide.mjs`. */
export type LoadPyodide = (opts: object) => Promise<PyodideAPI>;

/** The sandbox's own setup, which a snapshot already holds (it is redone, idempotent, after one). */
function setUp(py: PyodideAPI): PyodideAPI {
  py.FS.mkdirTree(DATA_DIR);
  py.runPython(`import os\nos.chdir(${JSON.stringify(DATA_DIR)})`);
  return py;
}

/**
 * Pyodide started from `init`'s snapshot when it has one that loads (its checksum is checked while
 * the wasm compiles), else clean; a clean start asked for one also makes a snapshot, before any call.
 *
 * @example
 * const { py, snapshot } = await startPyodide(loadPyodide, indexURL, { snapshot: null, makeSnapshot: true });
 */
export async function startPyodide(
  loadPyodide: LoadPyodide,
  indexURL: string,
  init: SandboxInit['init'] | null,
): Promise<{
  py: PyodideAPI;
  fromSnapshot: boolean;
  snapshot: SandboxSnapshot | null;
  snapshotError: string | null;
}> {
  // jsglobals: {} keeps `import js` empty; the CSP and the hardening do the rest.
  const base = { indexURL, jsglobals: {}, env: { HOME: DATA_DIR } };
  let snapshotError: string | null = null;
  if (init?.snapshot) {
    try {
      const bytes = checkedSnapshot(init.snapshot);
      // Checked while the wasm compiles; a rejection is handled below, once loadPyodide awaits it.
      bytes.catch(() => {});
      const py = setUp(await loadPyodide({ ...base, _loadSnapshot: bytes }));
      // A heap that restored but does not run is as bad as one that did not restore.
      if (py.runPython('1 + 1') !== 2) throw new Error('the restored interpreter does not compute');
      return { py, fromSnapshot: true, snapshot: null, snapshotError };
    } catch (err) {
      snapshotError = err instanceof Error ? err.message : String(err);
    }
  }
  const make = init?.makeSnapshot === true;
  const py = setUp(await loadPyodide(make ? { ...base, _makeSnapshot: true } : base));
  let snapshot: SandboxSnapshot | null = null;
  if (make) {
    const bytes = (py as unknown as { makeMemorySnapshot(): Uint8Array }).makeMemorySnapshot();
    snapshot = { bytes, sha256: await sha256Hex(bytes) };
  }
  return { py, fromSnapshot: false, snapshot, snapshotError };
}
