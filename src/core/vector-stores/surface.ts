import { clip, invalidRequest, notFound } from '../../common/api-error';
import type { Engine, ModelInfo } from '../../engine/types';
import type { ResponseStore } from '../../store/types';
import {
  MemoryVectorStores,
  type StoredVectorStore,
  type StoredVectorStoreFile,
  type VectorStoreStore,
} from '../../store/vector-stores';
import type { FileContentReader } from '../hosted/contracts';
import { newId } from '../http/ids';
import { LEXICAL_ONLY } from './budgets';
import { type FileTextExtractor, readTextFile } from './file-text';
import { Ingestor } from './ingest';
import type { ChunkingParam } from './params';
import { resolveChunking } from './params';
import type { SearchContext } from './search';
import { IndexCache } from './vector-index';

/** How vector stores embed and read files; `startIntab({ fileSearch })` passes these through. */
export interface VectorStoreOptions {
  /**
   * The embedding model new stores are built with and queries embedded with. Default: one that needs
   * no download (see {@link defaultEmbeddingModel}), else none: `'lexical'`, BM25 alone.
   */
  embeddingModel?: string;
  /** Turns a stored file into text; default {@link readTextFile} (UTF-8 text files). */
  extractText?: FileTextExtractor;
}

/** What the surface takes from the server. */
export interface VectorStoreDeps {
  engine: Engine;
  store: ResponseStore;
  now: () => number;
  maxBodyBytes: number;
  readFile?: FileContentReader;
  vectorStores?: VectorStoreOptions;
}

/** A file to attach, as a request names it. */
export interface AttachRequest {
  fileId: string;
  attributes: StoredVectorStoreFile['attributes'];
  chunking: ChunkingParam | null | undefined;
  /** Where the id came from, for errors (`file_id`, `file_ids[3]`, `files[3].file_id`). */
  param: string;
}

/**
 * The Vector Stores surface's state, shared by its routes and the `file_search` backend: the store,
 * the background ingestion, the search cache, and the embedding model.
 *
 * @example
 * const surface = new VectorStoreSurface(deps);
 * const record = await surface.mustGet('vs_1');
 */
export class VectorStoreSurface {
  readonly vs: VectorStoreStore;
  readonly cache: IndexCache;
  readonly ingest: Ingestor;
  readonly extractText: FileTextExtractor;

  constructor(readonly deps: VectorStoreDeps) {
    // A store double without a vector half still serves the API, from memory.
    this.vs = deps.store.vectorStores ?? new MemoryVectorStores();
    this.cache = new IndexCache(this.vs);
    this.extractText = deps.vectorStores?.extractText ?? readTextFile;
    this.ingest = new Ingestor({
      vs: this.vs,
      engine: deps.engine,
      readFile: deps.readFile,
      extractText: this.extractText,
    });
  }

  /** The model new stores and queries use: the option, else {@link defaultEmbeddingModel}. */
  embeddingModel(): string {
    return this.deps.vectorStores?.embeddingModel ?? defaultEmbeddingModel(this.deps.engine.models());
  }

  /** What searches need, over this surface. */
  searchContext(): SearchContext {
    return {
      cache: this.cache,
      engine: this.deps.engine,
      configuredModel: this.deps.vectorStores?.embeddingModel,
      now: this.deps.now,
    };
  }

  nowSeconds(): number {
    return Math.floor(this.deps.now() / 1000);
  }

  /** The store, or OpenAI's 404. */
  async mustGet(id: string): Promise<StoredVectorStore> {
    const store = await this.vs.getStore(id);
    if (!store) throw notFound(`No vector store found with id '${clip(id)}'.`);
    return store;
  }

  /**
   * Checks that each file exists (reading it through the Files API; a 400 on its `param` if not) and
   * builds its attachment record, `in_progress`. Nothing is written yet.
   */
  async prepareFiles(vectorStoreId: string, files: AttachRequest[], batchId: string | null) {
    const out: StoredVectorStoreFile[] = [];
    for (const f of files) {
      const content = await this.readFile(f.fileId, f.param);
      out.push({
        vectorStoreId,
        fileId: f.fileId,
        created_at: this.nowSeconds(),
        status: 'in_progress',
        last_error: null,
        usage_bytes: 0,
        attributes: f.attributes ?? null,
        chunking_strategy: resolveChunking(f.chunking),
        filename: content.filename,
        batchId,
        attempt: newId('call'),
      });
    }
    return out;
  }

  /** Queues attached files for indexing with the store's model, and marks the store active. */
  startIndexing(store: StoredVectorStore, files: StoredVectorStoreFile[]): void {
    for (const file of files) this.ingest.enqueue(file, store.embedding.model);
    this.touch(store.id);
  }

  /**
   * Picks up every file left `in_progress` by a runtime that stopped mid-indexing (a closed tab, a
   * restarted worker): nothing else would ever finish them. One that waited in the queue is queued
   * again, with the same attempt, so a run that does finish elsewhere first leaves this one nothing
   * to write; one whose run had started is `failed` (see {@link Ingestor.resume}). Resolves the
   * number queued.
   */
  async resume(): Promise<number> {
    let n = 0;
    for (const store of await this.vs.listStores())
      for (const file of await this.vs.listFiles(store.id))
        if (file.status === 'in_progress' && (await this.ingest.resume(file, store.embedding.model))) n++;
    return n;
  }

  /** Marks a store active now (`last_active_at`, which its expiry counts from). Best effort. */
  touch(id: string): void {
    void this.vs.updateStore(id, { last_active_at: this.nowSeconds() }).catch(() => {});
  }

  /**
   * Removes a deleted file from every vector store, stopping its indexing. The Files API's delete
   * calls this (through `VectorStoreStore.forgetFile` on the same storage, or here to also stop runs).
   */
  async forgetFile(fileId: string): Promise<number> {
    this.ingest.abortFile(fileId);
    return this.vs.forgetFile(fileId);
  }

  private async readFile(fileId: string, param: string) {
    if (!this.deps.readFile)
      throw invalidRequest(param, `No file found with id '${clip(fileId)}'.`, 'invalid_value');
    return this.deps.readFile(fileId, param);
  }
}

/**
 * The embedding model used when none is configured: the smallest listed embedding model that costs
 * no download and no GPU the device may lack, i.e. one the app registered on the CPU engine (an
 * embedding GGUF, `engine: 'wllama'`) or one whose weights are cached already; else
 * {@link LEXICAL_ONLY}: file_search by BM25 alone, which works on every device, offline, at once.
 * `scripted` (a test fixture's hashed bag of words) is never picked. A model list carries no sizes,
 * so "smallest" reads the size mark model families put in their ids (`snowflake-arctic-embed-xs/s/m/l`,
 * `…-small`/`-base`/`-large`); unmarked ones rank as medium, and ties keep the listing order.
 *
 * @example
 * defaultEmbeddingModel(engine.models()) // → 'lexical' with web-llm's list and nothing cached
 */
export function defaultEmbeddingModel(models: ModelInfo[]): string {
  const embedders = models.filter(
    (m) =>
      m.capabilities?.includes('embeddings') &&
      m.id !== 'scripted' &&
      (m.engine === 'wllama' || m.cached === true),
  );
  const smallest = embedders
    .map((m, i) => ({ id: m.id, rank: sizeRank(m.id), i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)[0];
  return smallest?.id ?? LEXICAL_ONLY;
}

const SIZE_MARKS: Record<string, number> = {
  xs: 0,
  tiny: 0,
  s: 1,
  small: 1,
  mini: 1,
  m: 2,
  base: 2,
  l: 3,
  large: 3,
  xl: 4,
};

/** The size mark in a model id (`-s-`, `_small`), ranked; 2 (medium) when it has none. */
function sizeRank(id: string): number {
  for (const part of id.toLowerCase().split(/[-_.]/)) {
    const rank = SIZE_MARKS[part];
    if (rank !== undefined) return rank;
  }
  return 2;
}
