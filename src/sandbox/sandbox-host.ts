import { CallQueue } from './call-queue';
import {
  DEFAULT_PYTHON_TIMEOUT_MS,
  FILES_NOT_WRITTEN,
  MAX_LIVE_SANDBOXES,
  OVER_MEMORY_NOTE,
  PYTHON_LOAD_TIMEOUT_MS,
  readSandboxReply,
  type SandboxFile,
  truncateLog,
} from './protocol';
import { readSandboxStarted, type SandboxInit, type SandboxStarted, type SnapshotStore } from './snapshot';

/**
 * The engine worker's side of the Python sandboxes: one sandbox worker per container, started on
 * its first call (or ahead of it, by {@link SandboxHost.prewarm}; from the kept interpreter
 * snapshot when there is one, see snapshot.ts), at most {@link MAX_LIVE_SANDBOXES} alive, each call bounded in wall time. Past
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
  /**
   * Where the interpreter snapshot is kept (snapshot.ts): sandboxes start from it, and the first
   * clean start makes it. Without one, every sandbox starts clean.
   */
  snapshots?: SnapshotStore;
  /** Told how each sandbox started (from the snapshot or clean, and its load time). */
  onStart?: (info: Omit<SandboxStarted['started'], 'snapshot'>) => void;
}

/** A prewarmed sandbox no container took is stopped after this long. */
export const SPARE_IDLE_MS = 5 * 60_000;

interface Live {
  worker: WorkerLike;
  /** The container it runs for; null while it is the spare. */
  container: string | null;
  /** Whether Pyodide is loaded (it said it started, or answered a call). */
  loaded: boolean;
  pending: Map<number, (reply: PythonRun) => void>;
  /** Messages held until its init is sent (the snapshot is being read); null once sent. */
  waiting: { message: unknown; transfer: Transferable[] }[] | null;
  /** Calls given this sandbox that have not finished (it is not stopped for room while any is). */
  reserved: number;
  /** Told once it reports started: a call's time limit runs from there (issue 38 §3.5). */
  onLoaded: Set<() => void>;
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
  /** A sandbox started ahead of its container ({@link SandboxHost.prewarm}), with its idle timer. */
  private spare: { box: Live; timer: ReturnType<typeof setTimeout> } | null = null;
  private readonly timeoutMs: number;
  private readonly loadTimeoutMs: number;
  /** One call at a time per container; past the live cap, calls wait for a sandbox to be free. */
  private readonly queue = new CallQueue<Live>({
    hasRoom: (id) =>
      this.live.has(id) || this.live.size < MAX_LIVE_SANDBOXES || [...this.live.values()].some(idle),
    take: (id) => {
      const box = this.sandbox(id);
      box.reserved++;
      return box;
    },
    release: (box) => {
      box.reserved--;
    },
  });

  constructor(private readonly opts: SandboxHostOptions) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_PYTHON_TIMEOUT_MS;
    this.loadTimeoutMs = opts.loadTimeoutMs ?? PYTHON_LOAD_TIMEOUT_MS;
  }

  /** How many sandbox workers are alive now (a prewarmed spare included). */
  get alive(): number {
    return this.live.size + (this.spare ? 1 : 0);
  }

  /**
   * Starts loading a sandbox before any container needs it (a request with `code_interpreter`
   * arrived, so Python is likely soon: the load overlaps the model's writing of the code), unless
   * `containerId`'s sandbox is already running. The next container that starts takes it. Does
   * nothing when a spare exists or the live sandboxes are at their cap; a spare no container takes
   * is stopped after {@link SPARE_IDLE_MS}.
   *
   * @example
   * host.prewarm(previousContainerId); // at the start of a response with code_interpreter
   */
  prewarm(containerId: string | null = null): void {
    if (containerId !== null && this.live.has(containerId)) return;
    if (this.spare || this.live.size >= MAX_LIVE_SANDBOXES) return;
    const box = this.launch();
    this.spare = { box, timer: setTimeout(() => this.drop(box), SPARE_IDLE_MS) };
  }

  /**
   * Runs `code` in `containerId`'s sandbox, writing `files` into `/mnt/data` first. Never rejects:
   * a timeout, a crash or `signal` ends the call `failed`, and the worker is terminated. Calls are
   * a queue: one at a time per container, and while {@link MAX_LIVE_SANDBOXES} sandboxes are all
   * busy a call for another container waits for one to finish (it never starts a third).
   */
  run(containerId: string, code: string, files: SandboxFile[], signal?: AbortSignal): Promise<PythonRun> {
    return this.queue.within(
      containerId,
      signal,
      (box) => this.runIn(box, containerId, code, files, signal),
      cancelled,
    );
  }

  private runIn(
    box: Live,
    containerId: string,
    code: string,
    files: SandboxFile[],
    signal?: AbortSignal,
  ): Promise<PythonRun> {
    // Ids no code in the sandbox can guess, so a forged reply cannot match a pending call.
    const id = (crypto.getRandomValues(new Uint32Array(1))[0] ?? 0) + 1;
    return new Promise<PythonRun>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (run: PythonRun) => {
        clearTimeout(timer);
        box.onLoaded.delete(codeStarts);
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
      const limit = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(
          () =>
            fail(
              `Execution timed out after ${this.timeoutMs} ms: the sandbox was restarted and its state is lost.`,
            ),
          ms,
        );
      };
      // The limit is the call's own, from when its code can start: a sandbox still loading gets its
      // load time on top until it reports started, and then the call's limit afresh.
      const codeStarts = () => limit(this.timeoutMs);
      if (box.loaded) limit(this.timeoutMs);
      else {
        limit(this.timeoutMs + this.loadTimeoutMs);
        box.onLoaded.add(codeStarts);
      }
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      box.pending.set(id, finish);
      this.send(box, { id, code, files }, []);
    });
  }

  /** Terminates `containerId`'s worker, if any (expiry, delete, timeout); its calls end failed. */
  stop(containerId: string): void {
    const box = this.live.get(containerId);
    if (!box) return;
    this.live.delete(containerId);
    box.container = null;
    box.worker.terminate();
    for (const finish of [...box.pending.values()])
      finish({
        stdout: '',
        stderr: 'The sandbox was stopped.',
        files: [],
        failed: 'The sandbox was stopped.',
      });
    // Room freed for a waiting call; after this turn, never inside a hand-out that stopped it.
    queueMicrotask(() => this.queue.wake());
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
      if (idle(box)) this.stop(id);
    }
    const spare = this.spare;
    if (spare) {
      clearTimeout(spare.timer);
      this.spare = null;
    }
    const box = spare?.box ?? this.launch();
    box.container = containerId;
    this.live.set(containerId, box);
    return box;
  }

  /** Posts to the sandbox, after its init when that is still waiting for the snapshot. */
  private send(box: Live, message: unknown, transfer: Transferable[]): void {
    if (box.waiting) box.waiting.push({ message, transfer });
    else box.worker.postMessage(message, transfer);
  }

  /** Stops `box` wherever it is (a container's, or the spare). */
  private drop(box: Live): void {
    if (box.container !== null && this.live.get(box.container) === box) this.stop(box.container);
    else if (this.spare?.box === box) {
      clearTimeout(this.spare.timer);
      this.spare = null;
      box.worker.terminate();
    }
  }

  /** A new sandbox worker, sent its init (with the kept snapshot, once read) before any call. */
  private launch(): Live {
    const worker = this.opts.startWorker();
    const box: Live = {
      worker,
      container: null,
      loaded: false,
      pending: new Map(),
      waiting: null,
      reserved: 0,
      onLoaded: new Set(),
    };
    const store = this.opts.snapshots;
    if (!store)
      worker.postMessage({ init: { snapshot: null, makeSnapshot: false } } satisfies SandboxInit, []);
    else {
      box.waiting = [];
      void store
        .get()
        .catch(() => null)
        .then((snapshot) => {
          const init: SandboxInit = { init: { snapshot, makeSnapshot: true } };
          worker.postMessage(init, snapshot ? [snapshot.bytes.buffer as ArrayBuffer] : []);
          for (const m of box.waiting ?? []) worker.postMessage(m.message, m.transfer);
          box.waiting = null;
        });
    }
    worker.onmessage = (event) => this.receive(box, event.data);
    worker.onerror = () => this.drop(box);
    return box;
  }

  /** The sandbox's start report (once, before any reply), then its replies to pending calls. */
  private receive(box: Live, data: unknown): void {
    const started = box.loaded ? null : readSandboxStarted(data);
    if (started) {
      box.loaded = true;
      for (const codeStarts of [...box.onLoaded]) codeStarts();
      box.onLoaded.clear();
      const { snapshot, ...info } = started.started;
      this.opts.onStart?.(info);
      const store = this.opts.snapshots;
      // A fresh snapshot replaces a bad one; a bad one with none to replace it is dropped.
      if (store && snapshot) void store.put(snapshot).catch(() => {});
      else if (store && info.snapshotError) void store.drop().catch(() => {});
      return;
    }
    const reply = readSandboxReply(data, new Set(box.pending.keys()));
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
      this.drop(box);
      return;
    }
    const unwritten = reply.stderr.startsWith(FILES_NOT_WRITTEN) ? truncateLog(reply.stderr) : null;
    finish?.({
      stdout: truncateLog(reply.stdout),
      stderr: truncateLog(reply.stderr),
      files: unwritten === null ? reply.files : [],
      failed: unwritten,
    });
  }
}

/** Whether no call holds `box`: it may be stopped to make room. */
function idle(box: Live): boolean {
  return box.pending.size === 0 && box.reserved === 0;
}

function cancelled(): PythonRun {
  const why = 'The call was stopped: the response was cancelled.';
  return { stdout: '', stderr: why, files: [], failed: why };
}
