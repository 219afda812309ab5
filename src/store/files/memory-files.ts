import type { FileObject } from 'openai/resources/files';
import { isExpired, isLive } from '../expiry';
import {
  compareFiles,
  type FileListOptions,
  type FilePage,
  type FileStore,
  type StoredFileData,
  type StoredFileMeta,
} from './types';

/**
 * {@link FileStore} in memory, with the IndexedDB store's semantics: values are copied in and out,
 * an expired file is invisible before it is swept, and each call is all-or-nothing.
 *
 * @example
 * const files = new MemoryFiles(Date.now);
 * await files.put(meta, bytes);
 */
export class MemoryFiles implements FileStore {
  private readonly files = new Map<string, StoredFileData>();

  constructor(private readonly now: () => number) {}

  async put(meta: StoredFileMeta, bytes: Uint8Array): Promise<void> {
    this.files.set(meta.file.id, { meta: structuredClone(meta), bytes: bytes.slice() });
  }

  async get(id: string): Promise<StoredFileMeta | undefined> {
    const data = this.live(id);
    return data && structuredClone(data.meta);
  }

  async read(id: string): Promise<StoredFileData | undefined> {
    const data = this.live(id);
    return data && { meta: structuredClone(data.meta), bytes: data.bytes.slice() };
  }

  async list(opts: FileListOptions): Promise<FilePage | null> {
    const now = this.now();
    const sign = opts.order === 'asc' ? 1 : -1;
    let start: FileObject | undefined;
    if (opts.after !== undefined) {
      start = this.files.get(opts.after)?.meta.file;
      if (!start) return null;
    }
    const from = start;
    const matching = [...this.files.values()]
      .filter(({ meta }) => isLive(meta, now) && (!opts.purpose || meta.file.purpose === opts.purpose))
      .map(({ meta }) => meta.file)
      .filter((file) => !from || sign * compareFiles(file, from) > 0)
      .sort((a, b) => sign * compareFiles(a, b));
    return { data: structuredClone(matching.slice(0, opts.limit)), hasMore: matching.length > opts.limit };
  }

  async delete(id: string): Promise<boolean> {
    const existed = this.live(id) !== undefined;
    this.files.delete(id);
    return existed;
  }

  async sweep(): Promise<number> {
    const now = this.now();
    let expired = 0;
    for (const [id, { meta }] of this.files) {
      if (!isExpired(meta, now)) continue;
      this.files.delete(id);
      expired++;
    }
    return expired;
  }

  private live(id: string): StoredFileData | undefined {
    const data = this.files.get(id);
    return data && !isExpired(data.meta, this.now()) ? data : undefined;
  }
}
