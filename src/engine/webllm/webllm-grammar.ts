/**
 * What web-llm would only find out inside prefill, after the response headers are out: whether the
 * request's JSON schemas compile, checked here with xgrammar itself (`@mlc-ai/web-xgrammar`, the
 * version web-llm 0.2.86 bundles) so a bad schema is a 400 before any header. The same library
 * writes each JSON schema as EBNF with bounded whitespace: web-llm compiles `json_object` and a
 * structural tag's `json_schema` with xgrammar's any-whitespace default and offers no option, and a
 * small model can emit newlines there until `max_tokens`.
 *
 * web-xgrammar is 1 MB of JS and WASM, imported lazily on the first request that needs it, so the
 * default chunk does not grow.
 */
import type { ResponseFormat } from '@mlc-ai/web-llm';
import { ApiError, serviceUnavailable } from '../../common/api-error';
import { importLazy } from '../../common/lazy-assets';
import type { FunctionToolSpec, OutputFormatSpec } from '../types';

/** At most this many whitespace characters between JSON tokens: room for a newline and indentation. */
export const MAX_JSON_WHITESPACE = 12;

interface GrammarLike {
  toString(): string;
  dispose(): void;
}

/** The part of web-xgrammar used here; tests hand in the real library loaded for Node. */
export interface XGrammarLike {
  Grammar: {
    fromJSONSchema(
      schema: string,
      anyWhitespace?: boolean,
      indent?: number,
      separators?: [string, string],
      strictMode?: boolean,
      maxWhitespaceCnt?: number,
    ): Promise<GrammarLike>;
    fromStructuralTag(tag: Record<string, unknown>): Promise<GrammarLike>;
  };
}

let loaded: Promise<XGrammarLike> | null = null;

/**
 * Imports web-xgrammar once. Its UMD build sets `globalThis.xgrammar` (an ES module's `this` is
 * undefined, so it takes the global branch) and exports nothing of its own.
 *
 * @example
 * const { Grammar } = await loadXGrammar();
 */
export function loadXGrammar(): Promise<XGrammarLike> {
  // A failed load drops web-xgrammar's kept chunk, so the next grammar fetches it again.
  loaded ??= importLazy('web-xgrammar', () => import('@mlc-ai/web-xgrammar')).then(
    (mod) => ((globalThis as { xgrammar?: XGrammarLike }).xgrammar ?? mod) as XGrammarLike,
    (err: unknown) => {
      loaded = null;
      throw err;
    },
  );
  return loaded;
}

/**
 * web-xgrammar from `load`, or a clear 503 when it cannot be loaded (its chunk missing offline, say):
 * a request whose output is held by a grammar is not run without it, since web-llm would then hold
 * its JSON with unbounded whitespace and check its schemas only after the headers.
 *
 * @example
 * const xg = await requireXGrammar(); // or throws 503 grammar_unavailable
 */
export async function requireXGrammar(
  load: () => Promise<XGrammarLike> = loadXGrammar,
): Promise<XGrammarLike> {
  try {
    return await load();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw serviceUnavailable(
      `The grammar engine (web-xgrammar) could not be loaded (${reason}). This request's output is held by a grammar that needs it, so it was not run; reload the app and try again.`,
      'grammar_unavailable',
    );
  }
}

/**
 * Throws OpenAI's 400 for the first schema xgrammar cannot compile: `text.format`'s
 * (`invalid_json_schema`) or a tool's parameters (`invalid_function_parameters`).
 *
 * @example
 * await checkSchemas(xg, { type: 'json_schema', name: 'x', schema: { type: 'wat' }, strict: true }, []); // throws 400
 */
export async function checkSchemas(
  xg: XGrammarLike,
  format: OutputFormatSpec,
  tools: readonly FunctionToolSpec[],
): Promise<void> {
  if (format.type === 'json_schema' && !(await compiles(xg, format.schema))) {
    throw new ApiError(
      400,
      'invalid_request_error',
      'invalid_json_schema',
      'text.format.schema',
      `Invalid schema for response_format '${format.name}': local models accept only JSON schemas their grammar engine (xgrammar) can compile.`,
    );
  }
  for (const tool of tools) {
    if (tool.parameters && !(await compiles(xg, tool.parameters))) {
      throw new ApiError(
        400,
        'invalid_request_error',
        'invalid_function_parameters',
        'tools',
        `Invalid schema for function '${tool.name}': local models accept only JSON schemas their grammar engine (xgrammar) can compile.`,
      );
    }
  }
}

/**
 * `format` with every JSON schema in it (a `json_object`'s, or a structural tag's `json_schema`
 * elements) replaced by its EBNF with at most {@link MAX_JSON_WHITESPACE} whitespace characters
 * between tokens; other formats as they are.
 *
 * @example
 * await boundJsonWhitespace(xg, { type: 'json_object' }); // { type: 'grammar', grammar: 'root ::= …' }
 */
export async function boundJsonWhitespace(
  xg: XGrammarLike,
  format: ResponseFormat | undefined,
): Promise<ResponseFormat | undefined> {
  if (format?.type === 'json_object') {
    return { type: 'grammar', grammar: await jsonEbnf(xg, format.schema ?? '{"type": "object"}') };
  }
  if (format?.type === 'structural_tag' && typeof format.structural_tag === 'object') {
    return { ...format, structural_tag: (await rewrite(xg, format.structural_tag)) as never };
  }
  return format;
}

async function rewrite(xg: XGrammarLike, node: unknown): Promise<unknown> {
  if (Array.isArray(node)) return Promise.all(node.map((n) => rewrite(xg, n)));
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  if (record.type === 'json_schema' && 'json_schema' in record) {
    return { type: 'grammar', grammar: await jsonEbnf(xg, JSON.stringify(record.json_schema)) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) out[k] = await rewrite(xg, v);
  return out;
}

async function jsonEbnf(xg: XGrammarLike, schema: string): Promise<string> {
  const grammar = await xg.Grammar.fromJSONSchema(
    schema,
    true,
    undefined,
    undefined,
    true,
    MAX_JSON_WHITESPACE,
  );
  try {
    // xgrammar 0.1.27 bounds the whitespace of typed values only: its rules for values of any type
    // (`basic_array`, `basic_object`, all of `json_object`) keep `[ \n\t]*`.
    return grammar.toString().replaceAll('[ \\n\\t]*', `[ \\n\\t]{0,${MAX_JSON_WHITESPACE}}`);
  } finally {
    grammar.dispose();
  }
}

async function compiles(xg: XGrammarLike, schema: Record<string, unknown>): Promise<boolean> {
  try {
    await jsonEbnf(xg, JSON.stringify(schema));
    return true;
  } catch {
    // xgrammar aborts with its reason on stderr only; the exception says "Aborted()".
    return false;
  }
}
