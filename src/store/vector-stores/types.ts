import type { Metadata } from 'openai/resources/shared';
import type { StaticFileChunkingStrategyObject } from 'openai/resources/vector-stores/vector-stores';

/** Attributes of a vector store file: at most 16 keys of string, number or boolean (checked by the core). */
export type VectorFileAttributes = Record<string, string | number | boolean>;

/**
 * One vector store as stored. The wire object's `file_counts`, `usage_bytes` and `status` are not
 * stored: the core computes them from the file records on every read, so they can never drift from
 * the files they count (a count kept beside them would need every writer to update it exactly once).
 */
export interface StoredVectorStore {
  id: string;
  /** Unix seconds. */
  created_at: number;
  name: string;
  description: string | null;
  metadata: Metadata | null;
  expires_after: { anchor: 'last_active_at'; days: number } | null;
  /** Unix seconds: creation, every file added, every search. */
  last_active_at: number;
  /** The model every vector of this store was made with; `dimensions` is null until the first file. */
  embedding: { model: string; dimensions: number | null };
  /**
   * Bumped by every write that changes what a search over this store sees (a file indexed, removed
   * or re-attributed): the search cache keeps a store's vectors only while this is unchanged.
   */
  revision: number;
}

/** How a vector store or file is searchable: with embeddings (and BM25), or BM25 over its text alone. */
export type SearchIndexKind = 'vector' | 'lexical';

/** The status a vector store file goes through; `in_progress` until indexed or failed. */
export type VectorFileStatus = 'in_progress' | 'completed' | 'cancelled' | 'failed';

/** Why a vector store file failed, as OpenAI's `last_error`. */
export interface VectorFileError {
  code: 'server_error' | 'unsupported_file' | 'invalid_file';
  message: string;
}

/** One file of one vector store (keyed by both ids: one file may be in many stores). */
export interface StoredVectorStoreFile {
  vectorStoreId: string;
  fileId: string;
  /** Unix seconds. */
  created_at: number;
  status: VectorFileStatus;
  last_error: VectorFileError | null;
  usage_bytes: number;
  attributes: VectorFileAttributes | null;
  chunking_strategy: StaticFileChunkingStrategyObject;
  /** The Files API's name of the file, kept for search results. */
  filename: string;
  /** The batch that added it, if any. */
  batchId: string | null;
  /**
   * How the completed file is searchable: `vector` (embeddings, plus BM25 over its text) or
   * `lexical` (BM25 alone: no embedding model could run). Absent while indexing, and on records
   * written before it existed (those have vectors).
   */
  searchIndex?: SearchIndexKind;
  /**
   * Random per attachment: an ingestion finishes only the attachment it started on, so a file
   * removed and attached again meanwhile is never indexed with the old run's chunks.
   */
  attempt: string;
  /**
   * Ingestion runs started on this attachment; absent on records that never started one (and on
   * records from before it existed). A run counts itself before it reads the file, so a file found
   * `in_progress` with a run counted, at start-up, was being indexed when its runtime stopped: a
   * file that froze the engine until the watchdog killed it must not freeze every start after.
   */
  runsStarted?: number;
}

/** One file batch; its counts and status are computed from the files that carry its id. */
export interface StoredFileBatch {
  id: string;
  vectorStoreId: string;
  /** Unix seconds. */
  created_at: number;
  cancelled: boolean;
}

/** A file's vectors: `count` rows of `dimensions` float32s, L2-normalised, in one buffer. */
export interface StoredVectors {
  dimensions: number;
  data: ArrayBuffer;
}

/** What an ingestion hands back for one file. */
export type FileOutcome =
  | { ok: true; chunks: string[]; vectors: StoredVectors; usageBytes: number }
  | { ok: false; error: VectorFileError };

/** Everything a search over one store reads, from one consistent snapshot. */
export interface VectorIndexSnapshot {
  store: StoredVectorStore;
  /** The completed files, each with its chunk texts and vectors (same order). */
  files: { file: StoredVectorStoreFile; chunks: string[]; vectors: StoredVectors }[];
}

/** Store fields an update may change. */
export type VectorStorePatch = Partial<
  Pick<StoredVectorStore, 'name' | 'metadata' | 'expires_after' | 'last_active_at'>
>;

/**
 * The vector stores half of the ResponseStore: stores, their files, batches, chunk texts and vectors.
 * Every method that checks and writes does both in one transaction (one synchronous step in memory),
 * so a delete that races it wins for good: nothing deleted comes back.
 *
 * @example
 * await vs.putStore(record);
 * await vs.addFiles('vs_1', [file]);
 * await vs.finishFile('vs_1', file.fileId, file.attempt, outcome);
 */
export interface VectorStoreStore {
  putStore(record: StoredVectorStore): Promise<void>;
  getStore(id: string): Promise<StoredVectorStore | undefined>;
  /** Applies `patch` to a store that exists; undefined when it does not. */
  updateStore(id: string, patch: VectorStorePatch): Promise<StoredVectorStore | undefined>;
  listStores(): Promise<StoredVectorStore[]>;
  /** Deletes the store with its files, batches, chunk texts and vectors; false if there was none. */
  deleteStore(id: string): Promise<boolean>;
  /**
   * Attaches files (replacing an attachment of the same file, whose chunks and vectors go) and the
   * batch that adds them, if any; false when the store does not exist.
   */
  addFiles(vectorStoreId: string, files: StoredVectorStoreFile[], batch?: StoredFileBatch): Promise<boolean>;
  getFile(vectorStoreId: string, fileId: string): Promise<StoredVectorStoreFile | undefined>;
  listFiles(vectorStoreId: string): Promise<StoredVectorStoreFile[]>;
  updateFileAttributes(
    vectorStoreId: string,
    fileId: string,
    attributes: VectorFileAttributes | null,
  ): Promise<StoredVectorStoreFile | undefined>;
  /** Removes one file from one store, with its chunks and vectors; false if it was not there. */
  deleteFile(vectorStoreId: string, fileId: string): Promise<boolean>;
  /**
   * Ends an ingestion: writes the chunks, vectors and `completed` (or `failed` with its error) in one
   * step, only if the attachment `attempt` is still there and `in_progress`. False otherwise (the file
   * or store was deleted, the batch cancelled): then nothing is written.
   */
  finishFile(vectorStoreId: string, fileId: string, attempt: string, outcome: FileOutcome): Promise<boolean>;
  /**
   * Counts an ingestion run starting (`runsStarted` + 1), only if the attachment `attempt` is still
   * there and `in_progress`; false otherwise (nothing to index). Written before the run's work.
   */
  startFile(vectorStoreId: string, fileId: string, attempt: string): Promise<boolean>;
  getBatch(vectorStoreId: string, batchId: string): Promise<StoredFileBatch | undefined>;
  /** Marks the batch cancelled and its `in_progress` files `cancelled`; undefined if no such batch. */
  cancelBatch(vectorStoreId: string, batchId: string): Promise<StoredFileBatch | undefined>;
  /** The chunk texts of one indexed file (empty when it has none). */
  readChunks(vectorStoreId: string, fileId: string): Promise<string[]>;
  /** The store and its completed files' chunks and vectors, read together; undefined if no store. */
  readIndex(vectorStoreId: string): Promise<VectorIndexSnapshot | undefined>;
  /**
   * Removes a file from every vector store that holds it, with its chunks and vectors (the Files API
   * calls this when the file itself is deleted). Resolves the number of stores it was in.
   */
  forgetFile(fileId: string): Promise<number>;
}
