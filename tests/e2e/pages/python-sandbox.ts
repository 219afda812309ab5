/**
 * An e2e page for the Python sandbox: intab started as apps start it (so the service worker
 * controls the page and its workers, and `/v1/responses` runs `code_interpreter` in the engine
 * worker), and `window.runPython(container, code, timeoutMs)`, which
 * runs code (with the wall time `#timeoutMs=…` in the URL, 30 s by default) through python-host-worker.ts: a dedicated worker that starts the sandbox as a nested
 * worker, exactly as the engine worker does.
 */
import { type IntabClient, startIntab } from '../../../src/client';
import { cacheSnapshotStore, sha256Hex } from '../../../src/sandbox';
import hostWorkerUrl from './python-host-worker.ts?worker&url';

/** What a run gives back to the test (file bytes as sizes and the first bytes, in plain JSON). */
export interface PageRun {
  stdout: string;
  stderr: string;
  failed: string | null;
  files: { path: string; size: number; head: number[] }[];
  ms: number;
  alive: number;
  /** How the call's sandbox started, when the call started one (SandboxHost's onStart). */
  start: { fromSnapshot: boolean; snapshotError: string | null; loadMs: number } | null;
}

declare global {
  interface Window {
    intab: IntabClient;
    runPython(container: string, code: string): Promise<PageRun>;
    /** The kept snapshot's checksum, or null when none is kept. */
    snapshotSha(): Promise<string | null>;
    /** Replaces the kept snapshot with `kind` of bad one (its checksum made to match). */
    spoilSnapshot(kind: 'magic' | 'build'): Promise<void>;
  }
}

const timeoutMs = Number(new URLSearchParams(location.hash.slice(1)).get('timeoutMs') ?? 30_000);
window.intab = startIntab({ codeInterpreter: { timeoutMs } });
const host = new Worker(hostWorkerUrl, { type: 'module' });
window.runPython = (container, code) =>
  new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (event: MessageEvent<PageRun>) => resolve(event.data);
    host.postMessage({ container, code, timeoutMs }, [channel.port2]);
  });

const snapshots = cacheSnapshotStore(location.origin);
window.snapshotSha = async () => (await snapshots.get())?.sha256 ?? null;
window.spoilSnapshot = async (kind) => {
  const kept = await snapshots.get();
  if (!kept) throw new Error('no snapshot kept');
  // Bytes 0–3: Pyodide's magic number; 16–47: the build id it checks against its own.
  if (kind === 'magic') kept.bytes.fill(0, 0, 4);
  else kept.bytes.fill(0xab, 16, 48);
  await snapshots.put({ bytes: kept.bytes, sha256: await sha256Hex(kept.bytes) });
};
