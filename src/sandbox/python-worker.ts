/**
 * The Python sandbox: a module worker of its own (never the engine worker) that loads Pyodide from
 * its own folder on the app's origin (from the snapshot its host's first message may carry, see
 * snapshot.ts), hardens its global, and answers each {@link SandboxCall} with one {@link SandboxReply}. The service worker serves this script with a CSP that allows no eval, no
 * connection outside the Pyodide folder and no nested worker (see `sw/python-sandbox.ts`).
 */
import type { PyodideAPI } from 'pyodide';
import type { SandboxCall } from './protocol';
import { hardenScope, runCall } from './python-runtime';
import { type LoadPyodide, startPyodide } from './python-start';
import { readSandboxInit, type SandboxInit } from './snapshot';

/** The worker's global, as much of it as this script uses. */
declare const self: {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<unknown>) => void) | null;
};

/** The Pyodide folder: this script sits in it (`intab/vite` copies both there). */
// Not `new URL('./', import.meta.url)`: bundlers read that pattern as an asset to inline.
const indexURL = import.meta.url.replace(/[^/]*$/, '');

// Taken before loading, as the hardening removes the global one.
let post: (message: unknown, transfer: Transferable[]) => void = self.postMessage.bind(self);
const calls: SandboxCall[] = [];
let ready: PyodideAPI | null = null;
let loadError: string | null = null;
let busy = false;
/** Whether the first message (which says how to start) has come. */
let loading = false;

self.onmessage = (event: MessageEvent<unknown>) => {
  // The first message says how to start: an init (from the host), or a call (a clean start).
  if (!loading) {
    loading = true;
    const init = readSandboxInit(event.data);
    void load(init);
    if (init) return;
  }
  calls.push(event.data as SandboxCall);
  void drain();
};

/**
 * Whether this script runs under the sandbox's CSP: where `eval` works, the policy is missing (a
 * page the service worker does not control fetched it from the network), and the sandbox refuses
 * to run code rather than run it with the worker's real global in reach.
 */
function underCsp(): boolean {
  try {
    new Function('return 1')();
    return false;
  } catch {
    return true;
  }
}

async function load(init: SandboxInit['init'] | null): Promise<void> {
  const t0 = performance.now();
  try {
    if (!underCsp())
      throw new Error(
        'its script was served without its Content-Security-Policy (is the service worker in control?)',
      );
    const mod = (await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`)) as { loadPyodide: LoadPyodide };
    const { py, ...started } = await startPyodide(mod.loadPyodide, indexURL, init);
    post = hardenScope(self);
    // Before any call runs, so the snapshot holds no model-written state.
    if (init)
      post(
        { started: { ...started, loadMs: performance.now() - t0 } },
        started.snapshot ? [started.snapshot.bytes.buffer as ArrayBuffer] : [],
      );
    ready = py;
  } catch (err) {
    loadError = `Python failed to load in the sandbox: ${err instanceof Error ? err.message : String(err)}`;
  }
  void drain();
}

async function drain(): Promise<void> {
  if (busy || (!ready && !loadError)) return;
  busy = true;
  for (let call = calls.shift(); call; call = calls.shift()) {
    // A call always gets its reply: a throw here would leave the host waiting out the time limit.
    const reply = ready
      ? await runCall(ready, call).catch((err: unknown) => ({
          id: call.id,
          stdout: '',
          stderr: `The sandbox could not run the call: ${err instanceof Error ? err.message : String(err)}`,
          files: [],
        }))
      : { id: call.id, stdout: '', stderr: loadError ?? '', files: [] };
    post(
      reply,
      reply.files.map((f) => f.bytes.buffer as ArrayBuffer),
    );
  }
  busy = false;
}
