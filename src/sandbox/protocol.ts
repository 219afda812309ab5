/**
 * The messages between the engine worker and a Python sandbox worker, and the sandbox's bounds.
 * The engine side trusts nothing the sandbox sends: {@link readSandboxReply} accepts only the exact
 * reply shape, for a call it made, and drops anything else (a forged message from model-written code).
 */

/** Logs (stdout, stderr) a call returns at most, each: the rest is cut with a note saying so. */
export const MAX_LOG_BYTES = 64 * 1024;

/** Wall time one call may take when the app sets none (`startIntab({ codeInterpreter: { timeoutMs } })`). */
export const DEFAULT_PYTHON_TIMEOUT_MS = 30_000;

/** How long loading Pyodide may take before the sandbox counts as failed to start. */
export const PYTHON_LOAD_TIMEOUT_MS = 60_000;

/**
 * The sandbox's heap cap (wasm32 allows 4 GiB): a call that leaves Pyodide's memory above it ends
 * `failed` and the sandbox restarts. WebAssembly memory never shrinks, so nothing less frees it.
 */
export const MAX_SANDBOX_HEAP_BYTES = 1024 * 1024 * 1024;

/**
 * The line the sandbox ends stderr with when its heap went past the cap; the host then stops it.
 * Code that prints it itself only restarts its own sandbox.
 */
export const OVER_MEMORY_NOTE = '[the sandbox went past its memory cap and is restarted: its state is lost]';

/**
 * How the sandbox's stderr starts when a call's input file could not be written (the code did not
 * run); the host ends the call `failed` with it. Code that prints it itself only fails its own call.
 */
export const FILES_NOT_WRITTEN = '[the call did not run: file';

/** The most sandboxes (containers with a live worker) at once; starting a third stops the least recently used. */
export const MAX_LIVE_SANDBOXES = 2;

/** Where the code's files live in the sandbox, as in OpenAI's containers. */
export const DATA_DIR = '/mnt/data';

/** A file in `/mnt/data`: its path relative to it and its bytes. */
export interface SandboxFile {
  path: string;
  bytes: Uint8Array;
}

/** The engine worker to the sandbox: run `code`; `files` are written to `/mnt/data` first. */
export interface SandboxCall {
  id: number;
  code: string;
  files: SandboxFile[];
}

/** The sandbox's one reply to a call: its logs, and the files the code created or changed. */
export interface SandboxReply {
  id: number;
  stdout: string;
  stderr: string;
  files: SandboxFile[];
}

const REPLY_KEYS = ['files', 'id', 'stderr', 'stdout'];

/**
 * `data` as a {@link SandboxReply} when it is exactly one (these four keys, nothing else; strings
 * within {@link MAX_LOG_BYTES}'s character bound; files as `{path, bytes}`) for an id in `pending`,
 * else null. The sandbox runs model-written code, so its messages are input, never commands.
 *
 * @example
 * const reply = readSandboxReply(event.data, pending);
 * if (!reply) return; // forged, late or malformed: ignored
 */
export function readSandboxReply(data: unknown, pending: ReadonlySet<number>): SandboxReply | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const keys = Object.keys(data).sort();
  if (keys.length !== REPLY_KEYS.length || keys.some((k, i) => k !== REPLY_KEYS[i])) return null;
  const r = data as Record<string, unknown>;
  if (typeof r.id !== 'number' || !pending.has(r.id)) return null;
  if (typeof r.stdout !== 'string' || typeof r.stderr !== 'string') return null;
  if (r.stdout.length > MAX_LOG_BYTES + 256 || r.stderr.length > MAX_LOG_BYTES + 256) return null;
  if (!Array.isArray(r.files)) return null;
  const files: SandboxFile[] = [];
  for (const f of r.files as unknown[]) {
    const file = f as { path?: unknown; bytes?: unknown } | null;
    if (typeof file?.path !== 'string' || !(file.bytes instanceof Uint8Array)) return null;
    files.push({ path: file.path, bytes: file.bytes });
  }
  return { id: r.id, stdout: r.stdout, stderr: r.stderr, files };
}

/**
 * `text` cut to at most {@link MAX_LOG_BYTES} UTF-8 bytes, with a line saying how much was left out.
 *
 * @example
 * truncateLog('x'.repeat(100_000)).length < 66_000
 */
export function truncateLog(text: string): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= MAX_LOG_BYTES) return text;
  // `fatal: false` drops a character cut in half rather than throwing.
  const kept = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, MAX_LOG_BYTES));
  return `${kept.replace(/\uFFFD$/, '')}\n[output truncated: ${bytes.length - MAX_LOG_BYTES} more bytes]`;
}

/**
 * Where the app serves Pyodide and the sandbox script, from its own origin (`intab/vite` copies
 * them there): never precached, fetched when a response first runs Python.
 */
export const PYTHON_ASSET_PATH = '/intab-python/';

/** The sandbox worker's script, inside {@link PYTHON_ASSET_PATH}. */
export const SANDBOX_SCRIPT = 'sandbox.js';

/** The Pyodide files the sandbox loads (the npm package's core and standard library). */
export const PYODIDE_FILES = [
  'pyodide.mjs',
  'pyodide.asm.mjs',
  'pyodide.asm.wasm',
  'python_stdlib.zip',
  'pyodide-lock.json',
];

/**
 * The policy the service worker serves the sandbox script with: no eval (so `js.constructor.
 * constructor(…)` cannot reach the real global), no connection but to the Pyodide folder, no
 * nested worker. `origin` is the app's.
 *
 * @example
 * sandboxCsp('https://app.example') // "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src https://app.example/intab-python/; worker-src 'none'"
 */
export function sandboxCsp(origin: string): string {
  return `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${origin}${PYTHON_ASSET_PATH}; worker-src 'none'`;
}
