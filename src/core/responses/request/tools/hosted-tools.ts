import type { FileSearchTool } from 'openai/resources/responses/responses';
import * as z from 'zod/mini';
import { clip, invalidRequest } from '../../../../common/api-error';
import type { FunctionToolSpec, ToolChoiceSpec } from '../../../../engine/types';
import {
  DEFAULT_FILE_SEARCH_RESULTS,
  type FileSearchBackend,
  MAX_FILE_SEARCH_QUERIES,
  MAX_FILE_SEARCH_QUERY_CHARS,
  MAX_FILTER_DEPTH,
} from '../../../hosted';
import { parseOrThrow } from '../../../validation/params';
import type { McpPlan } from './mcp-plan';

/**
 * The hosted tools' two faces. On the wire, the request's `{type:'file_search', …}` entry, checked
 * here and echoed as OpenAI echoes it. To the model, a plain function in its family's native tool
 * section, with a fixed name and schema: the model calls it like any function, and the run's loop
 * (run-loop.ts) recognises the name, runs the tool and shows the model its result. The
 * model-facing specs never appear on the wire.
 */

/** The name the model calls `file_search` by. A function tool of the same name is refused. */
export const FILE_SEARCH_NAME = 'file_search';

/** `file_search(queries: string[])`, as the model sees it. */
export const FILE_SEARCH_SPEC: FunctionToolSpec = {
  name: FILE_SEARCH_NAME,
  description:
    'Search the files the user has provided. Give one or more short search queries; the results are file excerpts, each with a citation marker to write after what it supports.',
  parameters: {
    type: 'object',
    properties: {
      queries: {
        type: 'array',
        items: { type: 'string', maxLength: MAX_FILE_SEARCH_QUERY_CHARS },
        minItems: 1,
        maxItems: MAX_FILE_SEARCH_QUERIES,
      },
    },
    required: ['queries'],
    additionalProperties: false,
  },
  strict: true,
};

/** The names the loop runs itself rather than surfacing as `function_call`. */
export const HOSTED_NAMES: ReadonlySet<string> = new Set([FILE_SEARCH_NAME, 'python']);

const comparisonTypes = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'] as const;
const comparisonFilter = z.strictObject({
  key: z.string(),
  type: z.enum(comparisonTypes),
  value: z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number()]))]),
});
/** One level of a compound filter; its children are checked by {@link checkFilters} one by one. */
const compoundShell = z.strictObject({ type: z.enum(['and', 'or']), filters: z.array(z.unknown()) });

const fileSearchSchema = z.strictObject({
  type: z.literal('file_search'),
  vector_store_ids: z.array(z.string()),
  filters: z.optional(z.unknown()),
  max_num_results: z.optional(z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(50))),
  ranking_options: z.optional(
    z.strictObject({
      ranker: z.optional(z.enum(['auto', 'default-2024-11-15'])),
      score_threshold: z.optional(z.number().check(z.minimum(0)).check(z.maximum(1))),
      hybrid_search: z.optional(
        z.strictObject({
          embedding_weight: z.number().check(z.minimum(0)),
          text_weight: z.number().check(z.minimum(0)),
        }),
      ),
    }),
  ),
});

/**
 * Checks a `file_search` tool entry (`tools[i]`) and returns it as a response echoes it:
 * `filters: null` and `max_num_results` filled in when left out, `ranking_options` with `ranker:
 * 'auto'` and `score_threshold: 0`. A bad value is a 400 whose `param` names it.
 *
 * @example
 * parseFileSearchTool({ type: 'file_search', vector_store_ids: ['vs_1'] }, 0)
 * // → { type: 'file_search', vector_store_ids: ['vs_1'], filters: null, max_num_results: 20, ranking_options: { ranker: 'auto', score_threshold: 0 } }
 */
export function parseFileSearchTool(raw: unknown, i: number): FileSearchTool {
  const t = parseOrThrow(fileSearchSchema, raw, ['tools', i]);
  if (t.vector_store_ids.length === 0)
    throw invalidRequest(
      `tools[${i}].vector_store_ids`,
      'file_search needs at least one vector store id.',
      'empty_array',
    );
  const filters = t.filters == null ? null : checkFilters(t.filters, `tools[${i}].filters`);
  return {
    type: 'file_search',
    vector_store_ids: t.vector_store_ids,
    filters,
    max_num_results: t.max_num_results ?? DEFAULT_FILE_SEARCH_RESULTS,
    ranking_options: { ranker: 'auto', score_threshold: 0, ...t.ranking_options },
  };
}

/**
 * Checks a comparison or compound filter, nested at most {@link MAX_FILTER_DEPTH} deep, walking
 * with an explicit stack (so a hostile depth costs no call stack), and returns it unchanged.
 */
export function checkFilters(raw: unknown, param: string): NonNullable<FileSearchTool['filters']> {
  const stack: { node: unknown; path: string; depth: number }[] = [{ node: raw, path: param, depth: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { node, path, depth } = next;
    const type = (node as { type?: unknown } | null)?.type;
    if (type === 'and' || type === 'or') {
      if (depth > MAX_FILTER_DEPTH)
        throw invalidRequest(path, `Filters may nest at most ${MAX_FILTER_DEPTH} levels.`, 'invalid_value');
      const shell = parseOrThrow(compoundShell, node, [path]);
      shell.filters.forEach((child, k) => {
        stack.push({ node: child, path: `${path}.filters[${k}]`, depth: depth + 1 });
      });
    } else parseOrThrow(comparisonFilter, node, [path]);
  }
  return raw as NonNullable<FileSearchTool['filters']>;
}

/** A 400 for a function tool whose name a hosted tool in the same request takes. */
export function hostedNameTaken(name: string, i: number) {
  const tool = name === 'python' ? 'code_interpreter' : 'file_search';
  return invalidRequest(
    `tools[${i}].name`,
    `The function name '${clip(name)}' is reserved for the ${tool} tool in this request: rename the function.`,
    'invalid_value',
  );
}

/** What the run's loop needs to serve the request's hosted tools. */
export interface HostedPlan {
  /** The `file_search` tool, when the model may call it (`tool_choice` `none` and `allowed_tools` applied). */
  fileSearch: FileSearchTool | null;
  /** `include: ['file_search_call.results']`. */
  includeResults: boolean;
  /** `max_tool_calls`: the most built-in tool calls the response runs; later ones are ignored. */
  maxCalls: number;
  /** The request's `mcp` servers, listed (null: none). */
  mcp: McpPlan | null;
}

/**
 * The hosted half of a request's tools, checked against what serves them: every vector store a
 * `file_search` tool names must exist (a 400 on `tools[i].vector_store_ids` otherwise).
 *
 * @example
 * const hosted = await planHosted(body, tools, toolChoice, include, deps.fileSearch);
 */
export async function planHosted(
  body: { max_tool_calls?: number | null },
  tools: readonly { type: string }[],
  toolChoice: { choice: ToolChoiceSpec; allowed: readonly { type: string }[] },
  include: ReadonlySet<string>,
  backend: FileSearchBackend | undefined,
): Promise<Omit<HostedPlan, 'mcp'>> {
  const i = tools.findIndex((t) => t.type === 'file_search');
  const tool = i >= 0 ? (tools[i] as FileSearchTool) : null;
  if (tool) {
    if (!backend)
      throw invalidRequest(
        `tools[${i}].type`,
        'file_search is not available here: this server has no vector stores.',
        'unsupported_value',
      );
    await backend.checkStores(tool.vector_store_ids, `tools[${i}].vector_store_ids`);
  }
  const allowed = toolChoice.choice !== 'none' && toolChoice.allowed.some((t) => t.type === 'file_search');
  return {
    fileSearch: allowed ? tool : null,
    includeResults: include.has('file_search_call.results'),
    maxCalls: body.max_tool_calls ?? Number.POSITIVE_INFINITY,
  };
}
