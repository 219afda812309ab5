import { ApiError, clip, invalidRequest, notFound } from '../../common/api-error';
import {
  CONTAINER_IDLE_MS,
  type ContainerFileBytes,
  newPythonId,
  type PythonBackend,
  type PythonRunner,
  type PythonRunResult,
} from '../hosted';
import { CONTAINER_BUDGETS, clashWith, dataPath } from './container-files';

/**
 * The containers behind `code_interpreter` and `/v1/containers`, in the engine worker's memory: each
 * is one Python sandbox (run by the runner, started on its first call) and its files under
 * `/mnt/data`. A container unused for its idle time (20 minutes by default, OpenAI's documented
 * expiry) is dropped and its sandbox stopped. Files live here, not in the sandbox alone, so a
 * sandbox restarted after a timeout gets them back (its Python state is lost).
 */

/** The most containers kept at once, and files per container: past either, a 400 (see container-files.ts). */
export const MAX_CONTAINERS = CONTAINER_BUDGETS.maxContainers;
export const MAX_CONTAINER_FILES = CONTAINER_BUDGETS.maxFiles;

/** A container as `/v1/containers` returns it. */
export interface ContainerObject {
  id: string;
  object: 'container';
  created_at: number;
  name: string;
  status: 'running';
  expires_after: { anchor: 'last_active_at'; minutes: number };
  last_active_at: number;
  memory_limit: '1g' | '4g' | '16g' | '64g';
}

/** A file in a container, as `/v1/containers/{id}/files` returns it (`bytes` there is its size). */
export interface ContainerFileObject {
  id: string;
  object: 'container.file';
  bytes: number;
  container_id: string;
  created_at: number;
  path: string;
  source: 'user' | 'assistant';
}

interface StoredFile {
  meta: ContainerFileObject;
  data: Uint8Array;
}

interface Container {
  obj: ContainerObject;
  files: Map<string, StoredFile>;
  /** File ids the live sandbox has in `/mnt/data` already. */
  synced: Set<string>;
  /** Made by a response's `{type: 'auto'}` (only those make way for another). */
  auto: boolean;
  /** Bytes of its files. */
  bytes: number;
}

const DATA = '/mnt/data/';

/**
 * The registry; it is the `PythonBackend` the Responses tool loop runs code through.
 *
 * @example
 * const containers = new ContainerRegistry(new SandboxHost({ startWorker: () => startSandboxWorker() }));
 */
export class ContainerRegistry implements PythonBackend {
  private readonly all = new Map<string, Container>();
  /** Bytes of every container's files. */
  private bytes = 0;

  constructor(
    private readonly runner: PythonRunner,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates a container (`POST /v1/containers`, or `{type:'auto'}` in a response). */
  create(opts: {
    name: string;
    minutes?: number;
    memoryLimit?: ContainerObject['memory_limit'];
    auto?: boolean;
  }): ContainerObject {
    this.sweep();
    if (this.all.size >= MAX_CONTAINERS)
      throw invalidRequest(null, `At most ${MAX_CONTAINERS} containers may exist at once: delete one first.`);
    const at = Math.floor(this.now() / 1000);
    const obj: ContainerObject = {
      id: newPythonId('cntr'),
      object: 'container',
      created_at: at,
      name: opts.name,
      status: 'running',
      expires_after: { anchor: 'last_active_at', minutes: opts.minutes ?? CONTAINER_IDLE_MS / 60_000 },
      last_active_at: at,
      memory_limit: opts.memoryLimit ?? '1g',
    };
    this.all.set(obj.id, { obj, files: new Map(), synced: new Set(), auto: opts.auto ?? false, bytes: 0 });
    return { ...obj };
  }

  /** The containers, newest first. */
  list(): ContainerObject[] {
    this.sweep();
    return [...this.all.values()].map((c) => ({ ...c.obj })).reverse();
  }

  /** The container `id` (a 404 when it does not exist or has expired). */
  get(id: string): ContainerObject {
    return { ...this.find(id).obj };
  }

  /** Deletes the container and stops its sandbox. */
  delete(id: string): void {
    this.find(id);
    this.drop(id);
  }

  /**
   * Adds (or replaces, by path) a file; `name` is its path under `/mnt/data`. A 400 on `file` for a
   * name outside it or where another file's folder is, past the file count, or past the bytes
   * a container or all containers may hold ({@link CONTAINER_BUDGETS}).
   */
  addFile(id: string, name: string, data: Uint8Array, source: 'user' | 'assistant'): ContainerFileObject {
    const c = this.find(id);
    const path = `${DATA}${dataPath(name, 'file')}`;
    const old = [...c.files.values()].find((f) => f.meta.path === path);
    if (!old) {
      const clash = clashWith(
        path,
        [...c.files.values()].map((f) => f.meta.path),
      );
      if (clash !== null)
        throw invalidRequest(
          'file',
          `'${clip(path)}' cannot be a file beside '${clip(clash)}': a path is a file or a folder, not both.`,
          'invalid_value',
        );
      if (c.files.size >= MAX_CONTAINER_FILES)
        throw invalidRequest('file', `A container holds at most ${MAX_CONTAINER_FILES} files.`);
    }
    const grows = data.length - (old?.data.length ?? 0);
    if (c.bytes + grows > CONTAINER_BUDGETS.maxBytesPerContainer)
      throw invalidRequest(
        'file',
        `A container holds at most ${mib(CONTAINER_BUDGETS.maxBytesPerContainer)} of files: delete some first.`,
        'file_too_large',
      );
    if (this.bytes + grows > CONTAINER_BUDGETS.maxBytesTotal)
      throw invalidRequest(
        'file',
        `All containers together hold at most ${mib(CONTAINER_BUDGETS.maxBytesTotal)} of files: delete some first.`,
        'file_too_large',
      );
    c.bytes += grows;
    this.bytes += grows;
    const meta: ContainerFileObject = {
      id: old?.meta.id ?? newPythonId('cfile'),
      object: 'container.file',
      bytes: data.length,
      container_id: id,
      created_at: Math.floor(this.now() / 1000),
      path,
      source,
    };
    c.files.set(meta.id, { meta, data });
    // Code-written files are in the sandbox already; uploads go in before the next call.
    if (source === 'assistant') c.synced.add(meta.id);
    else c.synced.delete(meta.id);
    return { ...meta };
  }

  /** The container's files, newest first. */
  files(id: string): ContainerFileObject[] {
    return [...this.find(id).files.values()].map((f) => ({ ...f.meta })).reverse();
  }

  /** One file with its bytes (a 404 when it is not there). */
  file(id: string, fileId: string): StoredFile {
    const f = this.find(id).files.get(fileId);
    if (!f) throw notFound(`No such file '${clip(fileId)}' in container '${clip(id)}'.`, 'file_id');
    return f;
  }

  /** Removes a file from the container (the sandbox's copy stays until it restarts). */
  deleteFile(id: string, fileId: string): void {
    const f = this.file(id, fileId);
    const c = this.find(id);
    c.files.delete(fileId);
    c.bytes -= f.data.length;
    this.bytes -= f.data.length;
  }

  containerFor(container: string | { type: 'auto' }, param: string, previous: string | null): string {
    this.sweep();
    if (typeof container === 'string') {
      if (!this.all.has(container))
        throw invalidRequest(param, `Container '${clip(container)}' not found or expired.`, 'invalid_value');
      this.touch(container);
      return container;
    }
    if (previous !== null && this.all.has(previous)) {
      this.touch(previous);
      return previous;
    }
    if (this.all.size >= MAX_CONTAINERS) {
      const oldest = this.oldestAuto(param);
      this.drop(oldest);
    }
    return this.create({ name: 'auto', auto: true }).id;
  }

  checkAuto(param: string, previous: string | null): void {
    this.sweep();
    if (previous !== null && this.all.has(previous)) return;
    if (this.all.size >= MAX_CONTAINERS) this.oldestAuto(param);
  }

  /**
   * The auto container that makes way for a new one past the cap: the least recently active one
   * another response made. One the app made is never dropped for an auto one: a 400 when all are.
   */
  private oldestAuto(param: string): string {
    const autos = [...this.all.values()].filter((c) => c.auto);
    const [oldest] = autos.sort((a, b) => a.obj.last_active_at - b.obj.last_active_at);
    if (!oldest)
      throw invalidRequest(
        param,
        `At most ${MAX_CONTAINERS} containers may exist at once, and all of them were made by the app: delete one, or name one.`,
      );
    return oldest.obj.id;
  }

  prewarm(containerId: string | null): void {
    this.runner.prewarm?.(containerId !== null && this.all.has(containerId) ? containerId : null);
  }

  async run(containerId: string, code: string, signal: AbortSignal): Promise<PythonRunResult> {
    const c = this.all.get(containerId);
    if (!c) return { stdout: '', stderr: '', files: [], failed: 'The container has expired or was deleted.' };
    this.touch(containerId);
    const uploads: ContainerFileBytes[] = [...c.files.values()]
      .filter((f) => !c.synced.has(f.meta.id))
      .map((f) => ({ path: f.meta.path.slice(DATA.length), bytes: f.data }));
    const result = await this.runner.run(containerId, code, uploads, signal);
    this.touch(containerId);
    // A failed call's sandbox was stopped: its next one starts empty and gets every file again.
    if (result.failed !== null) c.synced.clear();
    else for (const f of c.files.values()) c.synced.add(f.meta.id);
    // A file the container cannot keep (its bounds, or a name outside /mnt/data from a sandbox that
    // is not to be trusted) fails the call, not the response.
    const refused: string[] = [];
    for (const f of result.files) {
      if (!this.all.has(containerId)) break;
      try {
        this.addFile(containerId, f.path, f.bytes, 'assistant');
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        refused.push(`${clip(f.path)}: ${err.message}`);
      }
    }
    if (refused.length === 0 || result.failed !== null) return result;
    return { ...result, failed: `files the code wrote were not kept (${refused.slice(0, 3).join('; ')})` };
  }

  writtenFiles(containerId: string): { file_id: string; path: string }[] {
    const c = this.all.get(containerId);
    const written = [...(c?.files.values() ?? [])].filter((f) => f.meta.source === 'assistant');
    return written.map((f) => ({ file_id: f.meta.id, path: f.meta.path }));
  }

  private touch(id: string): void {
    const c = this.all.get(id);
    if (c) c.obj.last_active_at = Math.floor(this.now() / 1000);
  }

  private find(id: string): Container {
    this.sweep();
    const c = this.all.get(id);
    if (!c) throw notFound(`No container found with id '${clip(id)}'.`, 'container_id');
    return c;
  }

  /** Drops the containers idle past their time, stopping their sandboxes. */
  private sweep(): void {
    const now = this.now() / 1000;
    for (const [id, c] of this.all)
      if (now - c.obj.last_active_at > c.obj.expires_after.minutes * 60) this.drop(id);
  }

  /** Forgets a container (its bytes with it) and stops its sandbox. */
  private drop(id: string): void {
    const c = this.all.get(id);
    if (!c) return;
    this.bytes -= c.bytes;
    this.all.delete(id);
    this.runner.stop(id);
  }
}

function mib(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}
