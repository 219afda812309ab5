import type { FileObject } from 'openai/resources/files';

/** One stored file's metadata: the wire object plus what the store needs to serve and expire it. */
export interface StoredFileMeta {
  file: FileObject;
  /** The media type the upload declared (or its name implies): what `GET …/content` answers with. */
  mimeType: string;
  /** Epoch ms after which the file is expired (its `expires_at`); null = kept until deleted. */
  expiresAt: number | null;
}

/** A stored file with its bytes, read together so a racing delete never leaves one without the other. */
export interface StoredFileData {
  meta: StoredFileMeta;
  bytes: Uint8Array;
}

/** One page of `GET /v1/files`: `hasMore` tells whether more files follow. */
export interface FilePage {
  data: FileObject[];
  hasMore: boolean;
}

/**
 * One page request of `GET /v1/files`: ordered by `created_at`, ties by id.
 *
 * @example
 * const page = await store.files.list({ limit: 20, order: 'desc', purpose: 'user_data' });
 */
export interface FileListOptions {
  /** A file id to start after (exclusive); the first page when undefined. */
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
  /** Only files of this purpose. */
  purpose?: string;
}

/**
 * The files of `/v1/files`. Metadata and bytes live apart (IndexedDB: two object stores), so listing
 * and retrieving never read a file's bytes; writing and deleting touch both in one transaction. An
 * expired file reads as missing before any sweep removes it. Every method rejects with an ApiError on
 * storage failure (quota: 507 `storage_quota_exceeded`).
 *
 * @example
 * await store.files.put(meta, bytes);
 * const data = await store.files.read(meta.file.id);
 */
export interface FileStore {
  /** Stores a new file: metadata and bytes in one transaction. */
  put(meta: StoredFileMeta, bytes: Uint8Array): Promise<void>;
  /** The file's metadata, or undefined when it never existed, was deleted or has expired. */
  get(id: string): Promise<StoredFileMeta | undefined>;
  /** Metadata and bytes together, or undefined as for {@link FileStore.get}. */
  read(id: string): Promise<StoredFileData | undefined>;
  /** A page of live files, or null when `after` names no stored file. */
  list(opts: FileListOptions): Promise<FilePage | null>;
  /** Deletes metadata and bytes; false when there was no live file to delete. */
  delete(id: string): Promise<boolean>;
  /** Removes every expired file with its bytes; resolves to how many. */
  sweep(): Promise<number>;
}

/**
 * The order `GET /v1/files` lists in: `created_at`, then id, ascending.
 *
 * @example
 * files.sort(compareFiles);
 */
export function compareFiles(a: FileObject, b: FileObject): number {
  return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
