import type { FileSearchBackend, FileSearchHit, FileSearchQuery } from '../hosted/contracts';
import { MAX_QUERIES, MAX_QUERY_CHARS } from './budgets';
import { parseFilters } from './filters';
import { loadSearchable, searchStores } from './search';
import type { VectorStoreSurface } from './surface';

/**
 * The `file_search` tool's view of the vector stores (the contract in `core/hosted/contracts.ts`):
 * the same search as `POST /v1/vector_stores/{id}/search`, over several stores at once, with the
 * tool's `hybrid_search` weights when given. The stores a response searches stay in worker memory
 * (the surface's index cache), so its later calls and turns do not read them again.
 *
 * @example
 * const backend = createFileSearchBackend(surface);
 * await backend.checkStores(['vs_1'], 'tools[0].vector_store_ids');
 * const hits = await backend.search({ vectorStoreIds: ['vs_1'], queries: ['solar'], maxNumResults: 5 });
 */
export function createFileSearchBackend(surface: VectorStoreSurface): FileSearchBackend {
  const ctx = surface.searchContext();
  return {
    async checkStores(vectorStoreIds: string[], param: string): Promise<void> {
      await loadSearchable(ctx, vectorStoreIds, param);
    },
    async search(query: FileSearchQuery): Promise<FileSearchHit[]> {
      const filters = query.filters ? parseFilters(query.filters, 'filters') : null;
      const hits = await searchStores(ctx, {
        vectorStoreIds: query.vectorStoreIds,
        // The model wrote these, not the client: blank ones are dropped and the rest bounded (the
        // first MAX_QUERIES, each cut to MAX_QUERY_CHARS) rather than refused mid-response.
        queries: query.queries
          .filter((q) => q.trim() !== '')
          .slice(0, MAX_QUERIES)
          .map((q) => q.slice(0, MAX_QUERY_CHARS)),
        filters,
        maxNumResults: query.maxNumResults,
        scoreThreshold: query.rankingOptions?.score_threshold,
        hybrid: query.rankingOptions?.hybrid_search,
        signal: query.signal,
        param: 'vector_store_ids',
      });
      for (const id of query.vectorStoreIds) surface.touch(id);
      return hits;
    },
  };
}
