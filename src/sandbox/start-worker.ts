import { PYTHON_ASSET_PATH, SANDBOX_SCRIPT } from './protocol';
import type { WorkerLike } from './sandbox-host';

/**
 * Starts one sandbox worker in the browser: a module worker (Pyodide refuses classic ones) on the
 * script the service worker serves with the sandbox's CSP. Works from the engine worker (a
 * dedicated worker starting a nested dedicated worker, which Chromium supports).
 *
 * @example
 * const host = new SandboxHost({ startWorker: () => startSandboxWorker() });
 */
export function startSandboxWorker(origin: string = self.location.origin): WorkerLike {
  const worker = new Worker(new URL(`${PYTHON_ASSET_PATH}${SANDBOX_SCRIPT}`, origin), {
    type: 'module',
    name: 'intab-python-sandbox',
  });
  const like: WorkerLike = {
    onmessage: null,
    onerror: null,
    postMessage: (message, transfer) => worker.postMessage(message, transfer ?? []),
    terminate: () => worker.terminate(),
  };
  worker.onmessage = (event) => like.onmessage?.({ data: event.data });
  worker.onerror = (event) => like.onerror?.(event);
  return like;
}
