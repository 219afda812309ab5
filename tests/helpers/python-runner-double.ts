import { resolve } from 'node:path';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import type { ContainerFileBytes, PythonRunner, PythonRunResult } from '../../src/core/hosted';
import { runCall } from '../../src/sandbox/python-runtime';

/**
 * A test double of the engine worker's SandboxHost for Node: real Pyodide (the npm package), run
 * in-process with the sandbox's own runtime (src/sandbox/python-runtime.ts), one interpreter per
 * container. No worker, so no wall-time limit and no CSP: those are tested with SandboxHost over a
 * worker double (tests/unit/sandbox) and in Chromium (tests/e2e/python-sandbox.test.ts).
 */
export class InProcessPython implements PythonRunner {
  private readonly boxes = new Map<string, Promise<PyodideAPI>>();
  readonly stopped: string[] = [];
  private n = 0;

  async run(containerId: string, code: string, files: ContainerFileBytes[]): Promise<PythonRunResult> {
    let box = this.boxes.get(containerId);
    if (!box) {
      box = loadPyodide({ indexURL: `${resolve(import.meta.dirname, '../../node_modules/pyodide')}/` });
      this.boxes.set(containerId, box);
      const py = await box;
      py.FS.mkdirTree('/mnt/data');
    }
    const reply = await runCall(await box, { id: ++this.n, code, files });
    return { stdout: reply.stdout, stderr: reply.stderr, files: reply.files, failed: null };
  }

  stop(containerId: string): void {
    this.boxes.delete(containerId);
    this.stopped.push(containerId);
  }
}
