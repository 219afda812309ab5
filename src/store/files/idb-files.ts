import type { FileObject } from 'openai/resources/files';
import { isLive } from '../expiry';
import { keysAbove, keysBelow, quiet, type SweepableStore, sweepStore, type TxRunner } from '../idb-tx';
import type { IntabTx } from '../idb-types';
import type { FileListOptions, FilePage, FileStore, StoredFileData, StoredFileMeta } from './types';

/** The two object stores a file lives in: its metadata record and its bytes. */
type FileStores = ['files', 'file_bytes'];
const FILE_STORES: FileStores = ['files', 'file_bytes'];

/**
 * {@link FileStore} on IndexedDB, on the connection (and {@link TxRunner}) of the IdbStore it belongs
 * to. Metadata (`files`) and bytes (`file_bytes`) are written and deleted in one transaction, and
 * read together for content, so no reader sees one without the other.
 *
 * @example
 * const files = new IdbFiles(runner, Date.now);
 * await files.put(meta, bytes);
 */
export class IdbFiles implements FileStore {
  constructor(
    private readonly runner: TxRunner,
    private readonly now: () => number,
  ) {}

  async put(meta: StoredFileMeta, bytes: Uint8Array): Promise<void> {
    await this.runner.run(FILE_STORES, 'readwrite', 'strict', (tx) => {
      quiet(tx.objectStore('files').put(meta));
      quiet(tx.objectStore('file_bytes').put(bytes, meta.file.id));
    });
  }

  async get(id: string): Promise<StoredFileMeta | undefined> {
    const meta = await this.runner.run(['files'], 'readonly', 'default', (tx) =>
      tx.objectStore('files').get(id),
    );
    return isLive(meta, this.now()) ? meta : undefined;
  }

  async read(id: string): Promise<StoredFileData | undefined> {
    const now = this.now();
    return this.runner.run(FILE_STORES, 'readonly', 'default', async (tx) => {
      const meta = await tx.objectStore('files').get(id);
      if (!isLive(meta, now)) return undefined;
      const bytes = await tx.objectStore('file_bytes').get(id);
      return bytes ? { meta, bytes } : undefined;
    });
  }

  async list(opts: FileListOptions): Promise<FilePage | null> {
    const now = this.now();
    return this.runner.run(['files'], 'readonly', 'default', async (tx) => {
      const store = tx.objectStore('files');
      let range: IDBKeyRange | null = null;
      if (opts.after !== undefined) {
        const start = await store.get(opts.after);
        if (!start) return null;
        const key: [number, string] = [start.file.created_at, start.file.id];
        range = opts.order === 'asc' ? keysAbove(key) : keysBelow(key);
      }
      const data: FileObject[] = [];
      let cursor = await store.index('by_created').openCursor(range, opts.order === 'asc' ? 'next' : 'prev');
      while (cursor) {
        const { value } = cursor;
        if (isLive(value, now) && (!opts.purpose || value.file.purpose === opts.purpose)) {
          if (data.length === opts.limit) return { data, hasMore: true };
          data.push(value.file);
        }
        cursor = await cursor.continue();
      }
      return { data, hasMore: false };
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.runner.run(FILE_STORES, 'readwrite', 'default', async (tx) => {
      const existing = await tx.objectStore('files').get(id);
      deleteFile(tx, id);
      // An expired file is already gone as far as clients can tell, so say so here too.
      return isLive(existing, this.now());
    });
  }

  async sweep(): Promise<number> {
    const { expired } = await sweepStore(
      (pick) =>
        // Relaxed: a sweep lost to a crash is simply redone by the next one.
        this.runner.run(FILE_STORES, 'readwrite', 'relaxed', async (tx) => {
          const ids = await pick(tx.objectStore('files') as unknown as SweepableStore);
          for (const id of ids) deleteFile(tx, id);
          return ids.length;
        }),
      this.now(),
      null,
    );
    return expired;
  }
}

function deleteFile(tx: IntabTx<FileStores, 'readwrite'>, id: string): void {
  quiet(tx.objectStore('files').delete(id));
  quiet(tx.objectStore('file_bytes').delete(id));
}
