import type { VectorStoreSearchResponse } from 'openai/resources/vector-stores/vector-stores';
import * as z from 'zod/mini';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { parseOrThrow } from '../validation/params';
import { DEFAULT_NUM_RESULTS, MAX_NUM_RESULTS, MAX_QUERIES, MAX_QUERY_CHARS } from './budgets';
import { parseFilters } from './filters';
import { searchStores } from './search';
import type { VectorStoreSurface } from './surface';

const querySchema = z.string().check(z.minLength(1)).check(z.maxLength(MAX_QUERY_CHARS));

const searchSchema = z.strictObject({
  query: z.union([querySchema, z.array(querySchema).check(z.minLength(1)).check(z.maxLength(MAX_QUERIES))]),
  // Checked by parseFilters, which bounds its depth and names the bad field.
  filters: z.optional(z.unknown()),
  max_num_results: z.nullish(z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(MAX_NUM_RESULTS))),
  ranking_options: z.nullish(
    z.strictObject({
      ranker: z.nullish(z.enum(['none', 'auto', 'default-2024-11-15'])),
      score_threshold: z.nullish(z.number().check(z.minimum(0)).check(z.maximum(1))),
    }),
  ),
  rewrite_query: z.nullish(z.boolean()),
});

/**
 * `POST /v1/vector_stores/{id}/search`: the best chunks for `query` (one string or several), one
 * result per chunk, best first. `ranker` `none`, `auto` and `default-2024-11-15` all mean the same
 * local ranking (there is no re-ranker to skip); `rewrite_query: true` is accepted and the query used
 * as is, which `search_query` echoes (as a list of strings).
 */
export async function searchVectorStore(
  request: Request,
  id: string,
  s: VectorStoreSurface,
): Promise<Response> {
  const body = parseOrThrow(searchSchema, await readJsonObject(request, s.deps.maxBodyBytes));
  const filters =
    body.filters === undefined || body.filters === null ? null : parseFilters(body.filters, 'filters');
  await s.mustGet(id);
  const queries = typeof body.query === 'string' ? [body.query] : body.query;
  const hits = await searchStores(s.searchContext(), {
    vectorStoreIds: [id],
    queries,
    filters,
    maxNumResults: body.max_num_results ?? DEFAULT_NUM_RESULTS,
    scoreThreshold: body.ranking_options?.score_threshold ?? undefined,
    signal: request.signal,
    param: null,
  });
  s.touch(id);
  const data: VectorStoreSearchResponse[] = hits.map((h) => ({
    file_id: h.file_id,
    filename: h.filename,
    score: h.score,
    attributes: h.attributes ?? {},
    content: [{ type: 'text', text: h.text }],
  }));
  return jsonResponse({
    object: 'vector_store.search_results.page',
    // Always an array: OpenAI's OpenAPI spec types the page's `search_query` as `string[]` (seen in
    // the clients generated from it, e.g. async-openai's `VectorStoreSearchResultsPage`).
    search_query: Array.isArray(body.query) ? body.query : [body.query],
    data,
    has_more: false,
    next_page: null,
  });
}
