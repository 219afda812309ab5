import type { FileSearchTool, ResponseFileSearchToolCall } from 'openai/resources/responses/responses';
import { MAX_FILE_SEARCH_QUERIES } from './budgets';
import { type CitationSource, formatSearchResults } from './citations';
import type { FileSearchBackend } from './contracts';
import { emitHostedItem, type RunOutput } from './hosted-events';

/**
 * One `file_search` call inside a response: the `file_search_call` item and its events, the search
 * itself (with the run's signal), and the tool result the model reads next.
 */

/** What a response's `file_search` calls run with. */
export interface FileSearchSetup {
  tool: FileSearchTool;
  backend: FileSearchBackend;
  /** `include: ['file_search_call.results']`: the item carries its results; else `results: null`. */
  includeResults: boolean;
}

/** What one call needs of its run. */
export interface FileSearchContext {
  /** The item's id (`fs_…`). */
  id: string;
  signal: AbortSignal;
  /** The response's citation markers so far; this call's hits are added, numbered on. */
  sources: Map<number, CitationSource>;
}

/** What one call hands the model: its tool result, and the same with fewer excerpts when that is too long. */
export interface FileSearchResult {
  text: string;
  /** How many excerpts `text` shows. */
  excerpts: number;
  /** The result with only the first `keep` excerpts, saying how many were left out. */
  shorter(keep: number): string;
}

/**
 * Runs one call to `file_search` with the model's `args` (`{"queries": [...]}`), emitting its item,
 * and returns the tool result for the model (and a way to shorten it). Arguments that name no query end the item `failed` and
 * tell the model why; a search that throws ends it `failed` (or `incomplete` when the run was
 * stopped) and the error goes on to the run.
 *
 * @example
 * const { text } = await runFileSearchCall(run.hostedOutput(), '{"queries":["blue sky"]}', setup, ctx);
 */
export async function runFileSearchCall(
  out: RunOutput,
  args: string,
  setup: FileSearchSetup,
  ctx: FileSearchContext,
): Promise<FileSearchResult> {
  const queries = parseQueries(args);
  const item: ResponseFileSearchToolCall = {
    id: ctx.id,
    type: 'file_search_call',
    status: 'in_progress',
    queries,
    results: null,
  };
  const malformed = 'file_search was called without queries: call it with {"queries": ["…"]}.';
  let result: FileSearchResult = { text: malformed, excerpts: 0, shorter: () => malformed };
  await emitHostedItem(
    out,
    item,
    async () => {
      if (queries.length === 0) return 'failed';
      const { tool } = setup;
      const max = tool.max_num_results ?? 1;
      const threshold = tool.ranking_options?.score_threshold ?? 0;
      const hits = (
        await setup.backend.search({
          vectorStoreIds: tool.vector_store_ids,
          queries,
          filters: tool.filters ?? null,
          maxNumResults: max,
          rankingOptions: tool.ranking_options,
          signal: ctx.signal,
        })
      )
        // The backend applies both; a backend that did not still cannot show the model more.
        .filter((h) => h.score >= threshold)
        .slice(0, max);
      const first = ctx.sources.size + 1;
      hits.forEach((h, i) => {
        ctx.sources.set(first + i, { file_id: h.file_id, filename: h.filename });
      });
      result = {
        text: formatSearchResults(hits, first),
        excerpts: hits.length,
        shorter: (keep) => {
          if (keep >= hits.length) return formatSearchResults(hits, first);
          if (keep <= 0)
            return `file_search found ${hits.length} excerpts, but none fit the model's context.`;
          const left = `(${hits.length - keep} more excerpts were left out to fit the model's context.)`;
          return `${formatSearchResults(hits.slice(0, keep), first)}\n\n${left}`;
        },
      };
      if (setup.includeResults)
        item.results = hits.map((h) => ({
          file_id: h.file_id,
          filename: h.filename,
          score: h.score,
          text: h.text,
          attributes: h.attributes,
        }));
      return 'completed';
    },
    () => ctx.signal.aborted,
  );
  return result;
}

/** The model's queries: `{"queries": [...]}` (a lone `query` string is taken too); else none. */
function parseQueries(args: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return [];
  }
  const p = parsed as { queries?: unknown; query?: unknown } | null;
  const raw = Array.isArray(p?.queries) ? p.queries : typeof p?.query === 'string' ? [p.query] : [];
  return raw
    .filter((q): q is string => typeof q === 'string' && q.trim() !== '')
    .slice(0, MAX_FILE_SEARCH_QUERIES);
}
