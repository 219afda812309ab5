/**
 * A `FileSearchBackend` double for the tool loop's tests: a few in-memory texts per vector store,
 * scored by word overlap (the share of the query's words a text holds), with every query it was
 * asked recorded. The real backend (src/core/vector-stores/) embeds and ranks; the loop only needs
 * the contract.
 *
 * @example
 * const backend = new MemoryFileSearch({ vs_docs: [{ file_id: 'file-1', filename: 'sky.txt', text: 'The sky is blue.' }] });
 * const { client } = makeRig({ fileSearch: backend });
 */
import { invalidRequest } from '../../src/common/api-error';
import type { FileSearchBackend, FileSearchHit, FileSearchQuery } from '../../src/core/hosted';

export interface DoubleFile {
  file_id: string;
  filename: string;
  text: string;
  attributes?: Record<string, string | number | boolean>;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

export class MemoryFileSearch implements FileSearchBackend {
  /** Every search the loop asked for, in order. */
  readonly queries: FileSearchQuery[] = [];
  /** Resolves each search after this promise (a test holds a search open with it). */
  gate: Promise<void> | null = null;

  constructor(private readonly stores: Record<string, DoubleFile[]>) {}

  async checkStores(ids: string[], param: string): Promise<void> {
    const missing = ids.find((id) => !Object.hasOwn(this.stores, id));
    if (missing) throw invalidRequest(param, `Vector store with id '${missing}' not found.`, 'invalid_value');
  }

  async search(query: FileSearchQuery): Promise<FileSearchHit[]> {
    this.queries.push(query);
    if (this.gate) {
      const signal = query.signal;
      await new Promise<void>((resolve, reject) => {
        this.gate?.then(resolve);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
    const asked = words(query.queries.join(' '));
    const threshold = query.rankingOptions?.score_threshold ?? 0;
    return query.vectorStoreIds
      .flatMap((id) => this.stores[id] ?? [])
      .map((f) => {
        const have = words(f.text);
        const shared = [...asked].filter((w) => have.has(w)).length;
        return {
          file_id: f.file_id,
          filename: f.filename,
          score: asked.size === 0 ? 0 : shared / asked.size,
          text: f.text,
          attributes: f.attributes ?? {},
        };
      })
      .filter((h) => h.score > 0 && h.score >= threshold)
      .sort((a, b) => b.score - a.score)
      .slice(0, query.maxNumResults);
  }
}
