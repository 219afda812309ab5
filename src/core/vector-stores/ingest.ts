import { ApiError } from '../../common/api-error';
import type { Engine } from '../../engine/types';
import type {
  FileOutcome,
  StoredVectorStoreFile,
  StoredVectors,
  VectorStoreStore,
} from '../../store/vector-stores';
import type { FileContentReader } from '../hosted/contracts';
import { LEXICAL_ONLY } from './budgets';
import { type Chunk, chunkText } from './chunker';
import { embedChunks } from './embed-chunks';
import type { FileTextExtractor } from './file-text';

/** What the ingestion of one attachment needs. */
export interface IngestDeps {
  vs: VectorStoreStore;
  engine: Engine;
  readFile?: FileContentReader;
  extractText: FileTextExtractor;
}

/**
 * Indexes attached files in the background, one at a time (the engine embeds one batch at a time
 * anyway): read the file's bytes, turn them into text, chunk, embed, then write chunks, vectors and
 * `completed` in one transaction, or `failed` with `last_error`. A file is never half-indexed: until
 * that last write nothing of it is searchable. Deleting the file or its store, or cancelling its
 * batch, aborts its run; the final write then finds the attachment gone and writes nothing.
 *
 * @example
 * ingestor.enqueue(fileRecord, 'scripted');
 * await ingestor.idle(); // tests: every queued file has finished
 */
export class Ingestor {
  private tail: Promise<void> = Promise.resolve();
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly deps: IngestDeps) {}

  /** Queues one attachment (status `in_progress`) to be indexed with `model`. */
  enqueue(file: StoredVectorStoreFile, model: string): void {
    const key = keyOf(file.vectorStoreId, file.fileId);
    const abort = new AbortController();
    this.running.get(key)?.abort();
    this.running.set(key, abort);
    this.tail = this.tail
      .then(() => this.run(file, model, abort.signal))
      .catch(() => {}) // run() records its own failures; nothing may break the queue
      .finally(() => {
        if (this.running.get(key) === abort) this.running.delete(key);
      });
  }

  /** Stops the runs of a store's files (all of them, or those named). */
  abort(vectorStoreId: string, fileIds?: string[]): void {
    for (const [key, abort] of this.running) {
      const [vs, file] = key.split('\u0000');
      if (vs === vectorStoreId && (!fileIds || fileIds.includes(file ?? ''))) abort.abort();
    }
  }

  /** Stops the runs of a file in every store (the file itself was deleted). */
  abortFile(fileId: string): void {
    for (const [key, abort] of this.running) if (key.endsWith(`\u0000${fileId}`)) abort.abort();
  }

  /**
   * Picks up a file a stopped runtime left `in_progress`: queued again if no run had started on it
   * (it waited behind another file), else `failed`. A run that started and never ended was
   * interrupted: a closed tab, or a worker the watchdog restarted because this very file held the
   * engine (a 2 MB one-word file froze it ~10 minutes at every start before issue 43); indexing it
   * again at each start could freeze every page load. Files this runtime queued itself are left
   * alone. Resolves whether the file was queued.
   */
  async resume(file: StoredVectorStoreFile, model: string): Promise<boolean> {
    if (this.running.has(keyOf(file.vectorStoreId, file.fileId))) return false;
    if ((file.runsStarted ?? 0) < 1) {
      this.enqueue(file, model);
      return true;
    }
    const message =
      'Indexing was interrupted: the runtime stopped while indexing this file, so it is not indexed ' +
      'again. Attach the file again to retry.';
    // A write that fails leaves the file for the next start; the other files still get their turn.
    await this.deps.vs
      .finishFile(file.vectorStoreId, file.fileId, file.attempt, failed('server_error', message))
      .catch(() => {});
    return false;
  }

  /** Resolves once every file queued so far has finished. */
  idle(): Promise<void> {
    return this.tail;
  }

  private async run(file: StoredVectorStoreFile, model: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const { vs } = this.deps;
    // Counted before any work, so a run that never ends is known at the next start (resume()). A
    // count that cannot be written (a full disk) does not stop the run: its own end is written too.
    if (!(await vs.startFile(file.vectorStoreId, file.fileId, file.attempt).catch(() => true))) return;
    if (signal.aborted) return;
    const outcome = await this.index(file, model, signal);
    if (signal.aborted) return;
    try {
      await vs.finishFile(file.vectorStoreId, file.fileId, file.attempt, outcome);
    } catch (err) {
      // The index could not be written (a full disk: 507): the file must still end, as `failed`,
      // rather than stay `in_progress` for every poll. That small write may go through where the big
      // one did not; if it cannot either, the next start-up's resume() tries the file again.
      const message = `The index could not be stored: ${err instanceof Error ? err.message : String(err)}`;
      await vs
        .finishFile(file.vectorStoreId, file.fileId, file.attempt, failed('server_error', message))
        .catch(() => {});
    }
  }

  private async index(file: StoredVectorStoreFile, model: string, signal: AbortSignal): Promise<FileOutcome> {
    try {
      if (!this.deps.readFile) return failed('invalid_file', `File '${file.fileId}' cannot be read here.`);
      const content = await this.deps.readFile(file.fileId, 'file_id').catch(() => null);
      if (!content) return failed('invalid_file', `File '${file.fileId}' no longer exists.`);
      const text = await this.deps.extractText(content);
      if (!text.ok) return { ok: false, error: text.error };
      const chunks = await chunkText(text.text, file.chunking_strategy.static);
      signal.throwIfAborted();
      const vectors = await this.vectors(model, chunks, signal);
      const textBytes = chunks.reduce((n, c) => n + new TextEncoder().encode(c.text).byteLength, 0);
      return {
        ok: true,
        chunks: chunks.map((c) => c.text),
        vectors,
        usageBytes: textBytes + vectors.data.byteLength,
      };
    } catch (err) {
      if (signal.aborted) return failed('server_error', 'Indexing was stopped.');
      const message = err instanceof ApiError || err instanceof Error ? err.message : String(err);
      return failed('server_error', `Indexing failed: ${message}`);
    }
  }

  /**
   * The chunks' vectors, or none: for a lexical store, and when the embedding model cannot run here
   * (no WebGPU, a download that fails offline). The file is then searchable by BM25 all the same,
   * and says so (`search_index: 'lexical'`) rather than ending `failed` for want of a GPU.
   */
  private async vectors(model: string, chunks: Chunk[], signal: AbortSignal): Promise<StoredVectors> {
    if (model === LEXICAL_ONLY) return NO_VECTORS();
    try {
      return await embedChunks(this.deps.engine, model, chunks, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return NO_VECTORS();
    }
  }
}

/** No vectors: the file is searched by BM25 over its chunks alone. */
const NO_VECTORS = (): StoredVectors => ({ dimensions: 0, data: new ArrayBuffer(0) });

function failed(code: 'server_error' | 'unsupported_file' | 'invalid_file', message: string): FileOutcome {
  return { ok: false, error: { code, message } };
}

function keyOf(vectorStoreId: string, fileId: string): string {
  return `${vectorStoreId}\u0000${fileId}`;
}
