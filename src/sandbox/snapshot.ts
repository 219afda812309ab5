/**
 * Starting a sandbox from a memory snapshot. Pyodide's own start (its Python interpreter booting
 * and importing its modules from the standard library) is most of a cold start: seconds on a
 * small machine, against well under one to copy a snapshot of the same heap back in. So the first
 * sandbox makes a snapshot of its interpreter right after loading, before any call runs (no
 * model-written code has touched it), and hands it to the host, which keeps it (Cache Storage in
 * the browser: the sandbox has no storage) and gives it to every later sandbox it starts.
 *
 * These are the two messages of that exchange and the checks on them. A snapshot that fails to
 * load (corrupt, truncated, another Pyodide build) falls back to a clean start, whose own fresh
 * snapshot replaces the bad one.
 */

import { PYTHON_ASSET_PATH } from './protocol';

/** A snapshot the host keeps: the bytes and their SHA-256 (hex), checked before they are loaded. */
export interface SandboxSnapshot {
  bytes: Uint8Array;
  sha256: string;
}

/** The host's first message to a sandbox worker: how to start. Calls follow it. */
export interface SandboxInit {
  init: {
    /** A snapshot to start from; null for a clean start. */
    snapshot: SandboxSnapshot | null;
    /** Whether a clean start should send back a snapshot of its interpreter (before any call). */
    makeSnapshot: boolean;
  };
}

/** The sandbox's message once it has loaded (before any reply), when its init asked for one. */
export interface SandboxStarted {
  started: {
    /** Whether it started from the snapshot it was given. */
    fromSnapshot: boolean;
    /** A fresh snapshot (a clean start that was asked for one), else null. */
    snapshot: SandboxSnapshot | null;
    /** Why the given snapshot could not be used (the sandbox then started clean), else null. */
    snapshotError: string | null;
    /** Pyodide's load, in ms (for the figures). */
    loadMs: number;
  };
}

/** The largest snapshot kept (a fresh interpreter's is ~31 MB; wasm32 caps memory at 4 GiB). */
export const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

/** Bumped when what the sandbox does before its snapshot changes: older snapshots are then not used. */
export const SNAPSHOT_FORMAT = 1;

/**
 * The SHA-256 of `bytes`, in hex.
 *
 * @example
 * await sha256Hex(new Uint8Array()) // 'e3b0c442…'
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * `snapshot.bytes` once their SHA-256 matches `snapshot.sha256`; rejects otherwise (a corrupt or
 * truncated snapshot is never loaded).
 *
 * @example
 * const bytes = await checkedSnapshot(init.snapshot);
 */
export async function checkedSnapshot(snapshot: SandboxSnapshot): Promise<Uint8Array> {
  if (snapshot.bytes.length > MAX_SNAPSHOT_BYTES) throw new Error('the snapshot is too large');
  if ((await sha256Hex(snapshot.bytes)) !== snapshot.sha256)
    throw new Error('the snapshot does not match its checksum');
  return snapshot.bytes;
}

function readSnapshot(value: unknown): SandboxSnapshot | null | undefined {
  if (value === null) return null;
  const s = value as { bytes?: unknown; sha256?: unknown } | undefined;
  if (typeof s !== 'object' || Object.keys(s).length !== 2) return undefined;
  if (!(s.bytes instanceof Uint8Array) || s.bytes.length > MAX_SNAPSHOT_BYTES) return undefined;
  if (typeof s.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(s.sha256)) return undefined;
  return { bytes: s.bytes, sha256: s.sha256 };
}

const STARTED_KEYS = ['fromSnapshot', 'loadMs', 'snapshot', 'snapshotError'];

/**
 * `data` as a {@link SandboxStarted} when it is exactly one, else null. Like replies, what the
 * sandbox sends is input: the host takes it only once, before any reply (see sandbox-host.ts).
 *
 * @example
 * const started = readSandboxStarted(event.data);
 */
export function readSandboxStarted(data: unknown): SandboxStarted | null {
  if (typeof data !== 'object' || data === null || Object.keys(data).join() !== 'started') return null;
  const s = (data as { started?: unknown }).started as Record<string, unknown> | null;
  if (typeof s !== 'object' || s === null) return null;
  const keys = Object.keys(s).sort();
  if (keys.length !== STARTED_KEYS.length || keys.some((k, i) => k !== STARTED_KEYS[i])) return null;
  const snapshot = readSnapshot(s.snapshot);
  if (snapshot === undefined || typeof s.fromSnapshot !== 'boolean' || typeof s.loadMs !== 'number')
    return null;
  if (s.snapshotError !== null && typeof s.snapshotError !== 'string') return null;
  return {
    started: {
      fromSnapshot: s.fromSnapshot,
      snapshot,
      snapshotError: s.snapshotError === null ? null : String(s.snapshotError).slice(0, 1000),
      loadMs: s.loadMs,
    },
  };
}

/**
 * The init message in `data` (the worker's first message), or null when the first message is a
 * call (a host that sends no init: a clean start, no snapshot made).
 *
 * @example
 * const init = readSandboxInit(first);
 */
export function readSandboxInit(data: unknown): SandboxInit['init'] | null {
  if (typeof data !== 'object' || data === null || !('init' in data)) return null;
  const init = (data as SandboxInit).init;
  const snapshot = readSnapshot(init?.snapshot ?? null);
  return { snapshot: snapshot ?? null, makeSnapshot: init?.makeSnapshot === true };
}

/** Where the host keeps the snapshot (the browser's is {@link cacheSnapshotStore}). */
export interface SnapshotStore {
  get(): Promise<SandboxSnapshot | null>;
  put(snapshot: SandboxSnapshot): Promise<void>;
  drop(): Promise<void>;
}

const CACHE_NAME = 'intab-python-snapshot';

/**
 * The snapshot in Cache Storage, under a key of this origin's Python folder (never fetched: only a
 * key), its checksum in a header. Every failure reads as "no snapshot" (a clean start).
 *
 * @example
 * new SandboxHost({ startWorker, snapshots: cacheSnapshotStore(self.location.origin) });
 */
export function cacheSnapshotStore(origin: string): SnapshotStore {
  const key = `${origin}${PYTHON_ASSET_PATH}.snapshot-v${SNAPSHOT_FORMAT}`;
  const open = () => caches.open(CACHE_NAME);
  return {
    async get() {
      try {
        const hit = await (await open()).match(key);
        const sha256 = hit?.headers.get('x-intab-sha256');
        if (!hit || !sha256) return null;
        return { bytes: new Uint8Array(await hit.arrayBuffer()), sha256 };
      } catch {
        return null;
      }
    },
    async put(snapshot) {
      const body = new Blob([snapshot.bytes as Uint8Array<ArrayBuffer>]);
      await (await open()).put(key, new Response(body, { headers: { 'x-intab-sha256': snapshot.sha256 } }));
    },
    async drop() {
      await (await open()).delete(key);
    },
  };
}
