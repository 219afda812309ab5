import type MiniSearch from 'minisearch';
import { pace } from '../../common/pace';
import type { StoredVectorStore, StoredVectorStoreFile, VectorStoreStore } from '../../store/vector-stores';
import { INDEX_CACHE_STORES, INT8_ABOVE_CHUNKS, SCAN_SLICE } from './budgets';

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

/**
 * Normalised vectors as int8, for stores too big to keep as float32 in worker memory (issue 22:
 * "above 50k chunks store int8 vectors, 4× less memory"). Each row keeps its own scale (symmetric,
 * `max |x| / 127`), so a row whose weight sits in a few components loses no more than one spread
 * evenly; a row costs `dims + 4` bytes instead of `4 · dims`. The query stays float32, so a score
 * is `scale · Σ q8[i] · query[i]`, off from the float score by at most `scale / 2 · ‖query‖₁`.
 */
export interface Int8Rows {
  dimensions: number;
  /** `rows · dimensions` quantised components, row after row. */
  values: Int8Array;
  /** One scale per row: component `i` of row `r` is `values[r · dims + i] · scales[r]`. */
  scales: Float32Array;
}

/**
 * Quantises `rows` vectors of `dims` floats, pacing every {@link SCAN_SLICE} rows (a 100k × 768
 * store is 77M components: it must not hold the worker in one step).
 *
 * @example
 * const int8 = await quantizeRows(file.vectors, 384);
 */
export async function quantizeRows(vectors: Float32Array, dims: number): Promise<Int8Rows> {
  const rows = dims > 0 ? Math.floor(vectors.length / dims) : 0;
  const values = new Int8Array(rows * dims);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    const base = r * dims;
    let max = 0;
    for (let i = 0; i < dims; i++) {
      const a = Math.abs(vectors[base + i] as number);
      if (a > max) max = a;
    }
    const scale = max / 127;
    scales[r] = scale;
    if (scale > 0)
      for (let i = 0; i < dims; i++) values[base + i] = Math.round((vectors[base + i] as number) / scale);
    if ((r + 1) % SCAN_SLICE === 0) await pace();
  }
  return { dimensions: dims, values, scales };
}

/**
 * Row `row` of `rows` · `query` (float32 query, four lanes as the float scan does).
 *
 * @example
 * const score = dotInt8(int8, 42, queryVector);
 */
export function dotInt8(rows: Int8Rows, row: number, query: Float32Array): number {
  const n = query.length;
  const v = rows.values;
  const base = row * n;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a += (v[base + i] as number) * (query[i] as number);
    b += (v[base + i + 1] as number) * (query[i + 1] as number);
    c += (v[base + i + 2] as number) * (query[i + 2] as number);
    d += (v[base + i + 3] as number) * (query[i + 3] as number);
  }
  for (; i < n; i++) a += (v[base + i] as number) * (query[i] as number);
  return (a + b + c + d) * (rows.scales[row] as number);
}

/** Bytes `rows` takes in memory (its two typed arrays). */
export function int8Bytes(rows: Int8Rows): number {
  return rows.values.byteLength + rows.scales.byteLength;
}
