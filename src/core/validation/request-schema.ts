import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { ApiError, clip } from '../../common/api-error';
import { chainProblem } from './schema-chains';
import { finiteProblem } from './schema-finite';
import { type Problem, walkSchema } from './schema-graph';

export { regexProblem } from './schema-patterns';

/**
 * The JSON Schemas a request carries (a `json_schema` format, function tools' `parameters`), checked
 * when the request arrives, as OpenAI checks them: a schema that is not valid JSON Schema, whose
 * patterns cannot run, whose `$ref` leads nowhere, or that no value can satisfy is a 400, before
 * anything is stored or generated. Without this, such a schema failed later, as a 500.
 *
 * ajv and re2js weigh about 300 KB: callers load this module with `import()` when a request carries
 * a schema, so the engine worker's first chunk stays as small as it was. Loading it also installs
 * re2js as the engine that the strict output check runs patterns on.
 */

/** Where a schema sits in the request, for the error. */
export interface SchemaSite {
  /** A response format or a function's parameters: OpenAI words and codes the two apart. */
  kind: 'response_format' | 'function';
  /** The format's or the function's name. */
  name: string;
  /** The request field, e.g. `text.format.schema` or `tools[1].parameters`. */
  param: string;
}

/**
 * Checks `schema` and throws OpenAI's 400: `invalid_json_schema` for a response format,
 * `invalid_function_parameters` for a function, worded `Invalid schema for response_format 'out':
 * In context=('properties', 'a'), …`.
 *
 * @example
 * checkRequestSchema({ type: 'strin' }, { kind: 'response_format', name: 'out', param: 'text.format.schema' });
 * // 400 "Invalid schema for response_format 'out': In context=('type'), must be equal to one of the allowed values: …"
 */
export function checkRequestSchema(schema: unknown, site: SchemaSite): void {
  const problem = metaschemaProblem(schema) ?? graphProblem(schema);
  if (!problem) return;
  const context = problem.at.map((k) => (typeof k === 'number' ? String(k) : `'${clip(k, 64)}'`)).join(', ');
  throw new ApiError(
    400,
    'invalid_request_error',
    site.kind === 'function' ? 'invalid_function_parameters' : 'invalid_json_schema',
    site.param,
    `Invalid schema for ${site.kind} '${clip(site.name, 64)}': In context=(${context}), ${problem.why}.`,
  );
}

let metaschema: ValidateFunction | null | undefined;

/**
 * The schema against the draft 2020-12 metaschema, with ajv (compiled once, on first use). Ajv
 * compiles with `new Function`: where a Content-Security-Policy forbids that in the worker, this step
 * is skipped and the walk below still runs.
 */
function metaschemaProblem(schema: unknown): Problem | null {
  if (metaschema === undefined) {
    try {
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      metaschema = ajv.getSchema('https://json-schema.org/draft/2020-12/schema') ?? null;
    } catch {
      metaschema = null;
    }
  }
  if (!metaschema || metaschema(schema)) return null;
  const error = metaschema.errors?.[0];
  if (!error) return null;
  const at = error.instancePath
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const list = allowed ? `: ${allowed.map((v) => `'${String(v)}'`).join(', ')}` : '';
  return { at, why: `${error.message ?? 'is not valid'}${list}` };
}

/**
 * What the metaschema cannot see, over the schema as a graph (`schema-graph.ts`): a pattern RE2 cannot
 * run or a `$ref` that leads nowhere; a loop or an overlong chain of `$ref`s for one value
 * (`schema-chains.ts`); no finite value that matches (`schema-finite.ts`). Each step is linear in
 * the schema's size, and none recurses.
 */
function graphProblem(schema: unknown): Problem | null {
  const { graph, problem } = walkSchema(schema);
  return problem ?? chainProblem(graph) ?? finiteProblem(graph);
}
