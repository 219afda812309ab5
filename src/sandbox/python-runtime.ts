import type { PyodideAPI } from 'pyodide';
import {
  DATA_DIR,
  FILES_NOT_WRITTEN,
  MAX_LOG_BYTES,
  MAX_SANDBOX_HEAP_BYTES,
  OVER_MEMORY_NOTE,
  type SandboxCall,
  type SandboxFile,
  type SandboxReply,
  truncateLog,
} from './protocol';

/**
 * What the sandbox worker does with a loaded Pyodide, apart from the worker itself so Node tests run
 * it against a real Pyodide: one call (files in, code run, logs and changed files out), and the
 * hardening of the worker's global once Pyodide has loaded.
 */

/** The most files a call hands back, and the most bytes one may hold; past either, a note in stderr. */
export const MAX_RETURNED_FILES = 32;
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/**
 * The most bytes one call hands back in all (the files past it stay in the sandbox, with a note):
 * what one call can park in the engine worker, a container's whole budget (issue 38 §3.3).
 */
export const MAX_RETURNED_BYTES = 128 * 1024 * 1024;

/**
 * What the sandbox removes from its global after loading: every way out of the worker (storage,
 * network, other workers and windows). The CSP blocks most already; this is the second wall.
 */
export const REMOVED_GLOBALS = [
  'indexedDB',
  'caches',
  'fetch',
  'importScripts',
  'Worker',
  'SharedWorker',
  'BroadcastChannel',
  'XMLHttpRequest',
  'WebSocket',
  'EventSource',
  'postMessage',
] as const;

/**
 * Shadows each of {@link REMOVED_GLOBALS} on `scope` with a non-writable `undefined` (most live on
 * the prototype, where `delete` cannot reach). Returns the `postMessage` it took away, bound, for
 * the worker's own replies: code that reaches the global cannot post.
 *
 * @example
 * const post = hardenScope(self);
 */
export function hardenScope(scope: object): (message: unknown, transfer: Transferable[]) => void {
  const s = scope as Record<string, unknown>;
  const post = s.postMessage as ((m: unknown, t: Transferable[]) => void) | undefined;
  const bound = post ? post.bind(scope) : () => {};
  for (const name of REMOVED_GLOBALS)
    Object.defineProperty(scope, name, { value: undefined, writable: false, configurable: false });
  return bound;
}

/** Appends writes up to a cap (the rest is counted, not kept), so a print loop cannot fill memory. */
class LogSink {
  private chunks: Uint8Array[] = [];
  private kept = 0;
  private dropped = 0;
  write = (buffer: Uint8Array): number => {
    const room = MAX_LOG_BYTES + 4 - this.kept;
    if (room > 0) {
      const part = buffer.slice(0, room);
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += Math.max(0, buffer.length - Math.max(room, 0));
    return buffer.length;
  };
  text(): string {
    const all = new Uint8Array(this.kept);
    let at = 0;
    for (const c of this.chunks) {
      all.set(c, at);
      at += c.length;
    }
    const text = truncateLog(new TextDecoder().decode(all));
    return this.dropped > 0 && !text.includes('[output truncated')
      ? `${text}\n[output truncated: ${this.dropped} more bytes]`
      : text;
  }
}

type FsStat = { mtime: number | Date; size: number; mode: number };
type DataFs = {
  readdir(p: string): string[];
  lstat(p: string): FsStat;
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
};

/**
 * Every regular file under `/mnt/data`, by path relative to it, with its mtime and size. Links are
 * neither followed nor returned (a dangling one, or a loop, cost nothing: issue 38 §3.8), nor are
 * devices or pipes; an entry that cannot be read is skipped, so the walk never throws.
 */
function listData(py: PyodideAPI): Map<string, string> {
  const fs = py.FS as unknown as DataFs;
  const out = new Map<string, string>();
  const stack = [''];
  // A bound on the walk: a script that makes a million files costs a bounded scan.
  let budget = 10_000;
  for (let rel = stack.pop(); rel !== undefined && budget > 0; rel = stack.pop()) {
    let names: string[];
    try {
      names = fs.readdir(`${DATA_DIR}${rel}`);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name === '.' || name === '..' || --budget <= 0) continue;
      const path = `${rel}/${name}`;
      let st: FsStat;
      try {
        st = fs.lstat(`${DATA_DIR}${path}`);
      } catch {
        continue;
      }
      if (fs.isDir(st.mode)) stack.push(path);
      else if (fs.isFile(st.mode)) out.set(path.slice(1), `${Number(st.mtime)}:${st.size}`);
    }
  }
  return out;
}

/**
 * Writes the call's files into `/mnt/data`; the first that cannot be written (a path that leaves
 * `/mnt/data`, or one where a file stands for a folder) is the call's error, never a throw.
 */
function writeFiles(py: PyodideAPI, files: SandboxFile[]): string | null {
  for (const f of files) {
    const parts = f.path.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..'))
      return `${FILES_NOT_WRITTEN} '${f.path}' is not a path inside ${DATA_DIR}]`;
    try {
      if (parts.length > 1) py.FS.mkdirTree(`${DATA_DIR}/${parts.slice(0, -1).join('/')}`);
      py.FS.writeFile(`${DATA_DIR}/${f.path}`, f.bytes);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return `${FILES_NOT_WRITTEN} '${f.path}' could not be written to ${DATA_DIR} (${why}): a file and a folder may share no path]`;
    }
  }
  return null;
}

/**
 * Runs one call in `py`: writes `call.files` into `/mnt/data`, runs the code (state persists in
 * the interpreter between calls), and replies with its stdout, its stderr (a traceback included)
 * and the files it created or changed.
 *
 * @example
 * const reply = await runCall(py, { id: 1, code: 'print(1)', files: [] }); // reply.stdout === '1\n'
 */
export async function runCall(
  py: PyodideAPI,
  call: SandboxCall,
  heapCap: number = MAX_SANDBOX_HEAP_BYTES,
): Promise<SandboxReply> {
  py.FS.mkdirTree(DATA_DIR);
  const unwritten = writeFiles(py, call.files);
  if (unwritten !== null) return { id: call.id, stdout: '', stderr: unwritten, files: [] };
  const before = listData(py);
  const stdout = new LogSink();
  const stderr = new LogSink();
  py.setStdout({ write: stdout.write });
  py.setStderr({ write: stderr.write });
  let traceback = '';
  try {
    await py.runPythonAsync(call.code);
  } catch (err) {
    traceback = err instanceof Error ? err.message : String(err);
  } finally {
    py.setStdout({});
    py.setStderr({});
  }
  const files: SandboxFile[] = [];
  const notes: string[] = [];
  let returned = 0;
  for (const [path, sig] of listData(py)) {
    if (before.get(path) === sig) continue;
    if (files.length >= MAX_RETURNED_FILES) {
      notes.push(`[file ${path} not returned: more than ${MAX_RETURNED_FILES} files changed]`);
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = py.FS.readFile(`${DATA_DIR}/${path}`) as Uint8Array;
    } catch {
      notes.push(`[file ${path} not returned: it could not be read]`);
      continue;
    }
    if (bytes.length > MAX_FILE_BYTES)
      notes.push(`[file ${path} not returned: over ${MAX_FILE_BYTES} bytes]`);
    else if (returned + bytes.length > MAX_RETURNED_BYTES)
      notes.push(`[file ${path} not returned: the call's files passed ${MAX_RETURNED_BYTES} bytes in all]`);
    else {
      returned += bytes.length;
      files.push({ path, bytes });
    }
  }
  const err = truncateLog([stderr.text(), traceback, ...notes].filter((s) => s !== '').join('\n'));
  // Checked after the call, as the issue asks: the heap a call grew stays grown.
  const heap = (py as unknown as { _module?: { HEAP8?: Int8Array } })._module?.HEAP8?.buffer.byteLength ?? 0;
  const over = heap > heapCap ? `${err === '' ? '' : '\n'}${OVER_MEMORY_NOTE}` : '';
  return { id: call.id, stdout: stdout.text(), stderr: `${err}${over}`, files };
}
