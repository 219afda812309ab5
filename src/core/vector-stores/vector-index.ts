import type MiniSearch from 'minisearch';
import type { StoredVectorStore, StoredVectorStoreFile, VectorStoreStore } from '../../store/vector-stores';
import { INDEX_CACHE_STORES, INT8_ABOVE_CHUNKS } from './budgets';
import { type Int8Rows, quantizeRows } from './int8-rows';

/** One indexed file of a loaded store: its chunks, their vectors, and where its rows start. */
export interface IndexedFile {
  file: StoredVectorStoreFile;
  chunks: string[];
  /** `chunks.length` rows of `dimensions` floats, normalised; empty when {@link int8} holds them. */
  vectors: Float32Array;
  /** The same rows as int8, in a store of more than {@link INT8_ABOVE_CHUNKS} chunks. */
  int8?: Int8Rows;
  /** The store-wide row number of this file's first chunk. */
  offset: number;
}

/** A store's searchable state, as of one `revision`. */
export interface LoadedIndex {
  store: StoredVectorStore;
  files: IndexedFile[];
  rows: number;
  /** The BM25 index of every chunk (document id = row), built on the first hybrid search. */
  bm25?: Promise<MiniSearch<{ id: number; text: string }>>;
}

/**
 * Keeps the vectors of the stores searched lately in worker memory, so the searches of one response
 * (and of the next turns) read IndexedDB once. An entry serves while its store's `revision` is
 * unchanged; any write that changes what a search sees bumps it. Least recently used goes first.
 *
 * @example
 * const index = await cache.load('vs_1'); // undefined when the store does not exist
 */
export class IndexCache {
  private readonly entries = new Map<string, LoadedIndex>();

  constructor(private readonly vs: VectorStoreStore) {}

  async load(vectorStoreId: string): Promise<LoadedIndex | undefined> {
    const store = await this.vs.getStore(vectorStoreId);
    if (!store) {
      this.entries.delete(vectorStoreId);
      return undefined;
    }
    const cached = this.entries.get(vectorStoreId);
    if (cached && cached.store.revision === store.revision) {
      this.entries.delete(vectorStoreId); // re-insert: most recently used last
      this.entries.set(vectorStoreId, cached);
      return cached;
    }
    const snapshot = await this.vs.readIndex(vectorStoreId);
    if (!snapshot) return undefined;
    let rows = 0;
    const files: IndexedFile[] = snapshot.files.map(({ file, chunks, vectors }) => {
      const entry = { file, chunks, vectors: new Float32Array(vectors.data), offset: rows };
      rows += chunks.length;
      return entry;
    });
    if (rows > INT8_ABOVE_CHUNKS) {
      // Big stores stay in memory as int8; the float32 rows read from IndexedDB are let go.
      for (const [i, entry] of files.entries()) {
        entry.int8 = await quantizeRows(entry.vectors, snapshot.files[i]?.vectors.dimensions ?? 0);
        entry.vectors = new Float32Array(0);
      }
    }
    const loaded: LoadedIndex = { store: snapshot.store, files, rows };
    this.entries.delete(vectorStoreId);
    this.entries.set(vectorStoreId, loaded);
    while (this.entries.size > INDEX_CACHE_STORES) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return loaded;
  }

  /** Drops a store's entry now (deleted), rather than at its next load. */
  forget(vectorStoreId: string): void {
    this.entries.delete(vectorStoreId);
  }
}

/**
 * The chunk at store-wide `row`: a binary search over the files' offsets.
 *
 * @example
 * const { file, chunk } = rowAt(index, 42);
 */
export function rowAt(index: LoadedIndex, row: number): { file: IndexedFile; chunk: number } {
  let lo = 0;
  let hi = index.files.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((index.files[mid]?.offset ?? 0) <= row) lo = mid;
    else hi = mid - 1;
  }
  const file = index.files[lo] as IndexedFile;
  return { file, chunk: row - file.offset };
}
