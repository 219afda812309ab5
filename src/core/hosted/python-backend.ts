import { newId } from '../http/ids';

/**
 * What `code_interpreter` runs on: containers (one Python sandbox each, with its files) over a
 * runner that executes code in them. The runner is the engine worker's SandboxHost (src/sandbox) in
 * the browser, a test double in Node; the containers (`src/core/containers/`, which serves
 * `/v1/containers` too) are the backend. The core's tool loop only knows these shapes.
 */

/**
 * An id for `code_interpreter`'s objects (`ci_…` calls, `cntr_…` containers, `cfile_…` files),
 * built as `newChatCompletionId` builds its own: another prefix on `newId`'s random hex.
 *
 * @example
 * newPythonId('ci') // → 'ci_3f9a…'
 */
export function newPythonId(prefix: 'ci' | 'cntr' | 'cfile'): string {
  return `${prefix}_${newId('call').slice('call_'.length)}`;
}

/** A container is dropped, and its sandbox stopped, after this long unused by default (OpenAI's documented expiry). */
export const CONTAINER_IDLE_MS = 20 * 60 * 1000;

/** A file in a container's `/mnt/data`. */
export interface ContainerFileBytes {
  path: string;
  bytes: Uint8Array;
}

/** How one call ended, as the runner reports it. */
export interface PythonRunResult {
  stdout: string;
  stderr: string;
  files: ContainerFileBytes[];
  /** Why the call did not finish (a timeout, a crash, a stop); null when it ran. */
  failed: string | null;
}

/** Runs code in a container's sandbox (SandboxHost has this shape). */
export interface PythonRunner {
  run(
    containerId: string,
    code: string,
    files: ContainerFileBytes[],
    signal?: AbortSignal,
  ): Promise<PythonRunResult>;
  stop(containerId: string): void;
  /**
   * Starts loading a sandbox ahead of the first call (SandboxHost.prewarm), unless `containerId`'s
   * is already running. Optional: a runner without it starts sandboxes at the first call.
   */
  prewarm?(containerId: string | null): void;
}

/** What the tool loop asks of the containers. */
export interface PythonBackend {
  /**
   * The container a response's calls run in: for `{type:'auto'}`, `previous` (the chain's last
   * one) while it lives, else a new one; else the one the id names (a 400 on `param` when none is
   * alive by that id).
   */
  containerFor(container: string | { type: 'auto' }, param: string, previous: string | null): string;
  /**
   * Throws the 400 that `containerFor({type:'auto'}, param, previous)` would, now: checked when the
   * request is read, so a response that could never get a container is refused before it starts.
   */
  checkAuto?(param: string, previous: string | null): void;
  /** Runs `code` in the container; never rejects (a failure is `failed`). */
  run(containerId: string, code: string, signal: AbortSignal): Promise<PythonRunResult>;
  /** The files code wrote in the container that are still there (none once it is gone), for citations. */
  writtenFiles(containerId: string): { file_id: string; path: string }[];
  /**
   * A response that may run Python has started: get a sandbox loading, so Pyodide's start overlaps
   * the model writing the code. `containerId`: the container the response will use, when known.
   */
  prewarm?(containerId: string | null): void;
}
