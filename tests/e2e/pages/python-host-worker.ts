/**
 * The engine worker's side of the sandbox, alone in a dedicated worker (see python-sandbox.ts):
 * a SandboxHost whose sandboxes are nested module workers on the service worker's CSP script.
 */
import { cacheSnapshotStore, SandboxHost, startSandboxWorker } from '../../../src/sandbox';

let host: SandboxHost | null = null;
/** How the latest sandbox started (reset before each call: null when the call started none). */
let lastStart: unknown = null;

self.onmessage = async (event: MessageEvent<{ container: string; code: string; timeoutMs: number }>) => {
  const { container, code, timeoutMs } = event.data;
  // One host, with the wall time of the first call (the page's), as the engine worker has one.
  host ??= new SandboxHost({
    startWorker: () => startSandboxWorker(),
    timeoutMs,
    snapshots: cacheSnapshotStore(self.location.origin),
    onStart: (info) => {
      lastStart = info;
    },
  });
  lastStart = null;
  const started = performance.now();
  const run = await host.run(container, code, []);
  event.ports[0]?.postMessage({
    stdout: run.stdout,
    stderr: run.stderr,
    failed: run.failed,
    files: run.files.map((f) => ({ path: f.path, size: f.bytes.length, head: [...f.bytes.subarray(0, 8)] })),
    ms: performance.now() - started,
    alive: host.alive,
    start: lastStart,
  });
};
