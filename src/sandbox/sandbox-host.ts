import {
  DEFAULT_PYTHON_TIMEOUT_MS,
  MAX_LIVE_SANDBOXES,
  OVER_MEMORY_NOTE,
  PYTHON_LOAD_TIMEOUT_MS,
  readSandboxReply,
  type SandboxFile,
  truncateLog,
} from './protocol';

/**
 * The engine worker's side of the Python sandboxes: one sandbox worker per container, started on
 * its first call, at most {@link MAX_LIVE_SANDBOXES} alive, each call bounded in wall time. Past
 * the bound the worker is terminated (Pyodide's interrupt needs SharedArrayBuffer, which intab
 * cannot assume) and the container's next call starts a fresh, empty one.
 */

/** What the host needs of a worker: `Worker` has it; tests pass a double. */
export interface WorkerLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  terminate(): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** How one call ended: its logs and changed files, or `failed` with what the log should say. */
export interface PythonRun {
  stdout: string;
  stderr: string;
  files: SandboxFile[];
  /** Why the call did not finish (timeout, the worker crashed, stopped): null when it ran. */
  failed: string | null;
}

export interface SandboxHostOptions {
  /** Starts one sandbox worker (in the browser: `new Worker(sandboxUrl, { type: 'module' })`). */
  startWorker: () => WorkerLike;
  /** Wall time per call; {@link DEFAULT_PYTHON_TIMEOUT_MS} by default. */
  timeoutMs?: number;
  /** Wall time for a call that also loads Pyodide; {@link PYTHON_LOAD_TIMEOUT_MS} more by default. */
  loadTimeoutMs?: number;
}

interface Live {
  worker: WorkerLike;
  /** Whether a call has been answered since start (Pyodide is loaded). */
  loaded: boolean;
  pending: Map<number, (reply: PythonRun) => void>;
}

/**
 * Runs Python for containers by id. A container keeps its interpreter state between calls while
 * its worker lives.
 *
 * @example
 * const host = new SandboxHost({ startWorker: () => new Worker(url, { type: 'module' }) });
 * const run = await host.run('cntr_1', 'print(1)', [], signal); // run.stdout === '1\n'
 */
export class SandboxHost {
  private readonly live = new Map<string, Live>();
  private readonly timeoutMs: number;
  private readonly loadTimeoutMs: number;

  constructor(private readonly opts: SandboxHostOptions) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_PYTHON_TIMEOUT_MS;
    this.loadTimeoutMs = opts.loadTimeoutMs ?? PYTHON_LOAD_TIMEOUT_MS;
  }

  /** How many sandbox workers are alive now. */
  get alive(): number {
    return this.live.size;
  }

  /**
   * Runs `code` in `containerId`'s sandbox, writing `files` into `/mnt/data` first. Never rejects:
   * a timeout, a crash or `signal` ends the call `failed`, and the worker is terminated.
   */
  run(containerId: string, code: string, files: SandboxFile[], signal?: AbortSignal): Promise<PythonRun> {
    const box = this.sandbox(containerId);
    // Ids no code in the sandbox can guess, so a forged reply cannot match a pending call.
    const id = (crypto.getRandomValues(new Uint32Array(1))[0] ?? 0) + 1;
    const limit = this.timeoutMs + (box.loaded ? 0 : this.loadTimeoutMs);
    return new Promise<PythonRun>((resolve) => {
      const finish = (run: PythonRun) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        box.pending.delete(id);
        resolve(run);
      };
      const fail = (why: string) => {
        // This call ends with its own reason before the stop ends any other.
        finish({ stdout: '', stderr: why, files: [], failed: why });
        if (this.live.get(containerId) === box) this.stop(containerId);
      };
      const onAbort = () => fail('The call was stopped: the response was cancelled.');
      const timer = setTimeout(
        () =>
          fail(
            `Execution timed out after ${this.timeoutMs} ms: the sandbox was restarted and its state is lost.`,
          ),
        limit,
      );
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      box.pending.set(id, finish);
      box.worker.postMessage({ id, code, files }, []);
    });
  }

  /** Terminates `containerId`'s worker, if any (expiry, delete, timeout); its calls end failed. */
  stop(containerId: string): void {
    const box = this.live.get(containerId);
    if (!box) return;
    this.live.delete(containerId);
    box.worker.terminate();
    for (const finish of [...box.pending.values()])
      finish({
        stdout: '',
        stderr: 'The sandbox was stopped.',
        files: [],
        failed: 'The sandbox was stopped.',
      });
  }

  /** The container's live sandbox, started (and the least recently used one stopped) if needed. */
  private sandbox(containerId: string): Live {
    const existing = this.live.get(containerId);
    if (existing) {
      // Map order is the LRU order: move to the end.
      this.live.delete(containerId);
      this.live.set(containerId, existing);
      return existing;
    }
    for (const [id, box] of this.live) {
      if (this.live.size < MAX_LIVE_SANDBOXES) break;
      if (box.pending.size === 0) this.stop(id);
    }
    const worker = this.opts.startWorker();
    const box: Live = { worker, loaded: false, pending: new Map() };
    worker.onmessage = (event) => {
      const reply = readSandboxReply(event.data, new Set(box.pending.keys()));
      if (!reply) return;
      box.loaded = true;
      const finish = box.pending.get(reply.id);
      if (reply.stderr.endsWith(OVER_MEMORY_NOTE)) {
        // Its heap cannot shrink: the sandbox goes, and the container's next call starts a fresh one.
        finish?.({
          stdout: truncateLog(reply.stdout),
          stderr: reply.stderr,
          files: [],
          failed: OVER_MEMORY_NOTE,
        });
        if (this.live.get(containerId) === box) this.stop(containerId);
        return;
      }
      finish?.({
        stdout: truncateLog(reply.stdout),
        stderr: truncateLog(reply.stderr),
        files: reply.files,
        failed: null,
      });
    };
    worker.onerror = () => {
      if (this.live.get(containerId) === box) this.stop(containerId);
    };
    this.live.set(containerId, box);
    return box;
  }
}
