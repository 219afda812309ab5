import { ApiError, clip, invalidRequest } from '../../common/api-error';
import { pace } from '../../common/pace';
import type { Engine } from '../../engine/types';
import type { FileSearchHit } from '../hosted/contracts';
import { LEXICAL_ONLY, MAX_NUM_RESULTS, MAX_QUERY_TERMS, RRF_K, SCAN_SLICE } from './budgets';
import { embedQueries } from './embed-chunks';
import { type AttributeFilter, matchesFilter } from './filters';
import { fuse, type Scored, TopK, topRows } from './scan';
import { type IndexCache, type IndexedFile, type LoadedIndex, rowAt } from './vector-index';

/** One search over one or more stores, checked already. */
export interface StoreSearch {
  vectorStoreIds: string[];
  queries: string[];
  filters?: AttributeFilter | null;
  maxNumResults: number;
  scoreThreshold?: number;
  /** Reciprocal rank fusion of the dense ranking with a BM25 one (MiniSearch), weighted so. */
  hybrid?: { embedding_weight: number; text_weight: number };
  signal?: AbortSignal;
  /** Names the store ids in errors: `vector_store_id` on the route, `tools[i].vector_store_ids` on the tool. */
  param: string | null;
}

/** What a search needs from the surface. */
export interface SearchContext {
  cache: IndexCache;
  engine: Engine;
  /**
   * The embedding model the runtime is configured with (`fileSearch.embeddingModel`), if any: a store
   * built with another is refused. Without one, each store is searched with the model it was built with.
   */
  configuredModel?: string;
  now: () => number;
}

/**
 * Searches every store and query, merges the hits (a chunk found by several queries keeps its best
 * score), drops those under the threshold and answers the best `maxNumResults`, best first. Scores
 * are cosines in [0, 1], or with `hybrid` normalised reciprocal-rank-fusion scores in [0, 1]. A
 * store with no vectors is ranked by BM25 alone (its rank-fusion score, 1 for the best); one whose
 * files are partly lexical fuses both rankings.
 *
 * @example
 * const hits = await searchStores(ctx, { vectorStoreIds: ['vs_1'], queries: ['solar'], maxNumResults: 5, param: null });
 */
export async function searchStores(ctx: SearchContext, req: StoreSearch): Promise<FileSearchHit[]> {
  const indexes = await loadSearchable(ctx, req.vectorStoreIds, req.param);
  // The queries are embedded once per model the stores were built with (one, nearly always).
  const byModel = new Map<string, Promise<Float32Array[]>>();
  const queryVectors = (model: string) => {
    const known = byModel.get(model);
    if (known) return known;
    const vectors = embedQueries(ctx.engine, model, req.queries, req.signal);
    byModel.set(model, vectors);
    return vectors;
  };
  const candidates = req.hybrid ? Math.max(req.maxNumResults * 2, MAX_NUM_RESULTS * 2) : req.maxNumResults;
  const allowed = (f: IndexedFile) => !req.filters || matchesFilter(f.file.attributes, req.filters);
  const merged: { index: LoadedIndex; row: number; score: number }[] = [];
  for (const index of indexes) {
    if (index.rows === 0) continue;
    req.signal?.throwIfAborted();
    const vectors = await denseQueries(index, queryVectors, req.signal);
    // Files with no vectors (a lexical store, or a model that could not run) are found by BM25 only.
    const mixed = vectors !== null && index.files.some((f) => allowed(f) && !hasVectors(f));
    const textCandidates = Math.max(candidates, mixed || !vectors ? MAX_NUM_RESULTS * 2 : 0);
    const best = new Map<number, number>();
    for (const [qi, query] of req.queries.entries()) {
      let ranking: Scored[];
      if (!vectors) {
        // Rank fusion of the BM25 ranking alone: scores in (0, 1], 1 for the best, as hybrid's are.
        ranking = fuse(
          [],
          await textRows(index, query, textCandidates, allowed, req.signal),
          LEXICAL_WEIGHTS,
          RRF_K,
        );
      } else {
        ranking = await topRows(index.files, vectors[qi] as Float32Array, candidates, allowed, req.signal);
        const weights = req.hybrid ?? (mixed ? EQUAL_WEIGHTS : null);
        if (weights)
          ranking = fuse(
            ranking,
            await textRows(index, query, textCandidates, allowed, req.signal),
            weights,
            RRF_K,
          );
      }
      for (const { row, score } of ranking) best.set(row, Math.max(best.get(row) ?? 0, score));
    }
    for (const [row, score] of best) merged.push({ index, row, score });
  }
  const threshold = req.scoreThreshold ?? 0;
  return merged
    .filter((m) => m.score >= threshold)
    .sort((a, b) => b.score - a.score)
    .slice(0, req.maxNumResults)
    .map(({ index, row, score }) => {
      const { file, chunk } = rowAt(index, row);
      return {
        file_id: file.file.fileId,
        filename: file.file.filename,
        score,
        text: file.chunks[chunk] ?? '',
        attributes: file.file.attributes,
      };
    });
}

/**
 * The stores' indexes, each checked: it exists (else a 400 on `param`), has not expired, and was
 * built with the embedding model the runtime is configured with, if one is (vectors of two models
 * never compare).
 * Marks each store active now.
 */
export async function loadSearchable(
  ctx: SearchContext,
  ids: string[],
  param: string | null,
): Promise<LoadedIndex[]> {
  await ctx.engine.init?.().catch(() => {}); // the model list is complete before a model is named
  const model = ctx.configuredModel;
  const nowSeconds = Math.floor(ctx.now() / 1000);
  const out: LoadedIndex[] = [];
  for (const id of ids) {
    const index = await ctx.cache.load(id);
    if (!index) throw invalidRequest(param, `Vector store with id '${clip(id)}' not found.`, 'not_found');
    const { store } = index;
    const expiresAt = store.expires_after ? store.last_active_at + store.expires_after.days * 86_400 : null;
    if (expiresAt !== null && expiresAt <= nowSeconds)
      throw invalidRequest(
        param,
        `Vector store '${clip(id)}' has expired and can no longer be searched.`,
        'expired',
      );
    // A lexical store embeds nothing, and a lexical runtime embeds no query: nothing to compare.
    const lexical = store.embedding.model === LEXICAL_ONLY || model === LEXICAL_ONLY;
    if (model !== undefined && !lexical && store.embedding.model !== model)
      throw new ApiError(
        400,
        'invalid_request_error',
        'embedding_model_mismatch',
        param,
        `Vector store '${clip(id)}' was built with the embedding model '${clip(store.embedding.model)}', but this runtime embeds queries with '${clip(model)}': vectors of two models cannot be compared. Search with the model the store was built with (the fileSearch embeddingModel option) or build the store again.`,
      );
    out.push(index);
  }
  return out;
}

const LEXICAL_WEIGHTS = { embedding_weight: 0, text_weight: 1 };
const EQUAL_WEIGHTS = { embedding_weight: 1, text_weight: 1 };

/** Whether a file was indexed with vectors (a lexical one has none). */
function hasVectors(f: IndexedFile): boolean {
  return f.int8 ? f.int8.values.length > 0 : f.vectors.length > 0;
}

/**
 * The queries' vectors for a store, or null when it is searched by BM25 alone: built with no model,
 * no file has vectors, or its model cannot run here now (no WebGPU, offline before its download),
 * in which case the search still answers, lexically, rather than fail for want of a GPU.
 */
async function denseQueries(
  index: LoadedIndex,
  queryVectors: (model: string) => Promise<Float32Array[]>,
  signal: AbortSignal | undefined,
): Promise<Float32Array[] | null> {
  if (index.store.embedding.model === LEXICAL_ONLY || !index.files.some(hasVectors)) return null;
  try {
    return await queryVectors(index.store.embedding.model);
  } catch (err) {
    if (signal?.aborted) throw err;
    return null;
  }
}

/**
 * The best `n` rows of `allowed` files by BM25 (MiniSearch's index, built on the first text search of
 * a store), exactly as `bm25.search(query)` ranks them, but scored one term at a time with
 * {@link pace} between steps: MiniSearch scores a whole query in one synchronous call whose merge
 * grows with terms × matches per chunk (one 2,027-character query of 676 words held the engine
 * 4.1 s on a 2,000-chunk store; ten of them one request, until the watchdog restarted it: issue 43).
 * Only the query's first {@link MAX_QUERY_TERMS} distinct terms count.
 *
 * MiniSearch's score, rebuilt: the sum over the query's terms (each time one occurs) of the term's
 * BM25+ score, times the number of distinct terms matched; ties in the order MiniSearch keeps them
 * (the first term's postings in row order, then the rows later terms add).
 *
 * @example
 * const best = await textRows(index, 'pump valve', 20, () => true);
 */
export async function textRows(
  index: LoadedIndex,
  query: string,
  n: number,
  allowed: (f: IndexedFile) => boolean,
  signal?: AbortSignal,
): Promise<Scored[]> {
  index.bm25 ??= buildBm25(index);
  const bm25 = await index.bm25;
  const { default: MiniSearch } = await import('minisearch');
  const terms = queryTerms(query, MiniSearch.getDefault('tokenize'), MiniSearch.getDefault('processTerm'));
  const byTerm = new Map<string, Scored[]>();
  const merged = new Map<number, { sum: number; matched: number }>();
  let steps = 0;
  for (const term of terms) {
    let postings = byTerm.get(term);
    const first = postings === undefined;
    if (!postings) {
      signal?.throwIfAborted();
      await pace();
      // One term, taken as it is: its score alone (quality 1), in row order (MiniSearch's postings).
      postings = bm25
        .search(term, ONE_TERM)
        .map((r) => ({ row: r.id as number, score: r.score }))
        .sort((a, b) => a.row - b.row);
      byTerm.set(term, postings);
    }
    for (const { row, score } of postings) {
      const m = merged.get(row);
      if (!m) merged.set(row, { sum: score, matched: 1 });
      else {
        m.sum += score;
        if (first) m.matched++;
      }
      if (++steps % SCAN_SLICE === 0) await pace();
    }
  }
  const top = new TopK(n); // ties: first offered first, as MiniSearch's stable sort keeps them
  for (const [row, { sum, matched }] of merged) {
    if (allowed(rowAt(index, row).file)) top.offer(row, sum * matched);
    if (++steps % SCAN_SLICE === 0) await pace();
  }
  return top.sorted();
}

/** MiniSearch's search options for one term already tokenized and processed. */
const ONE_TERM = { tokenize: (term: string) => [term], processTerm: (term: string) => term };

/**
 * The terms of `query` as MiniSearch's search reads them (its tokenizer, then its term processing),
 * each occurrence, keeping only the first {@link MAX_QUERY_TERMS} distinct ones.
 */
function queryTerms(
  query: string,
  tokenize: (text: string) => string[],
  processTerm: (term: string) => string | string[] | null | undefined | false,
): string[] {
  const distinct = new Set<string>();
  const out: string[] = [];
  for (const token of tokenize(query))
    for (const term of [processTerm(token)].flat()) {
      if (!term) continue;
      if (!distinct.has(term)) {
        if (distinct.size === MAX_QUERY_TERMS) continue;
        distinct.add(term);
      }
      out.push(term);
    }
  return out;
}

async function buildBm25(index: LoadedIndex) {
  const { default: MiniSearch } = await import('minisearch');
  const search = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], storeFields: [] });
  const docs = index.files.flatMap((f) => f.chunks.map((text, i) => ({ id: f.offset + i, text })));
  // In slices with a timer between them: indexing 100k chunks in one step would hold the worker.
  await search.addAllAsync(docs, { chunkSize: 500 });
  return search;
}
