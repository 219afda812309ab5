import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { ApiError, clip } from '../../common/api-error';
import { pointerTokens } from '../../common/json-pointer';
import { pace } from '../../common/pace';
import { chainProblem } from './schema-chains';
import { finiteProblem } from './schema-finite';
import { isObject, type Problem, walkSchema } from './schema-graph';

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
 * Checks `schema` and rejects with OpenAI's 400: `invalid_json_schema` for a response format,
 * `invalid_function_parameters` for a function, worded `Invalid schema for response_format 'out':
 * In context=('properties', 'a'), …`.
 *
 * @example
 * await checkRequestSchema({ type: 'strin' }, { kind: 'response_format', name: 'out', param: 'text.format.schema' });
 * // 400 "Invalid schema for response_format 'out': In context=('type'), must be equal to one of the allowed values: …"
 */
export async function checkRequestSchema(schema: unknown, site: SchemaSite): Promise<void> {
  // Starts the turn's clock if nothing has yet: each step below then yields once the turn is long.
  await pace();
  const problem = (await metaschemaProblem(schema)) ?? (await graphProblem(schema));
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

/** ajv's metaschema validator, compiled once (null where ajv cannot compile, under a strict CSP). */
let metaschema: Promise<ValidateFunction | null> | undefined;

/** A map of subschemas with more entries than this is checked one entry at a time. */
const SPLIT_ABOVE = 8;
const SPLIT_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * The schema against the draft 2020-12 metaschema, with ajv (compiled once, on first use). Ajv
 * compiles with `new Function`: where a Content-Security-Policy forbids that in the worker, this step
 * is skipped and the graph checks below still run.
 *
 * One ajv call over a 450 KB schema held the worker's loop for tens of milliseconds: a big map of
 * subschemas (`properties`, `$defs`, …) is checked one entry at a time instead, each entry against
 * the metaschema as the whole would check it, with {@link pace} between the pieces.
 */
async function metaschemaProblem(schema: unknown): Promise<Problem | null> {
  // One compile shared by the requests that arrive while it runs.
  metaschema ??= compileMetaschema();
  const validate = await metaschema;
  if (!validate) return null;
  const pieces: { schema: unknown; at: string[] }[] = [{ schema, at: [] }];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] as (typeof pieces)[number];
    if (!validate(shallow(piece, pieces))) return errorProblem(validate, piece.at);
    await pace();
  }
  return null;
}

async function compileMetaschema(): Promise<ValidateFunction | null> {
  try {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    // Making ajv and compiling the metaschema are two long steps: the loop may turn between them.
    await pace();
    const validate = ajv.getSchema('https://json-schema.org/draft/2020-12/schema') ?? null;
    await pace();
    return validate;
  } catch {
    return null;
  }
}

/** `piece.schema` with its big maps emptied, their entries added to `pieces`. */
function shallow(piece: { schema: unknown; at: string[] }, pieces: { schema: unknown; at: string[] }[]) {
  const s = piece.schema;
  if (!isObject(s)) return s;
  let copy: Record<string, unknown> | null = null;
  for (const key of SPLIT_MAPS) {
    const map = s[key];
    if (!isObject(map)) continue;
    const names = Object.keys(map);
    if (names.length <= SPLIT_ABOVE) continue;
    copy ??= { ...s };
    copy[key] = {};
    for (const name of names) pieces.push({ schema: map[name], at: [...piece.at, key, name] });
  }
  return copy ?? s;
}

function errorProblem(validate: ValidateFunction, prefix: string[]): Problem | null {
  const error = validate.errors?.[0];
  if (!error) return null;
  const at = pointerTokens(error.instancePath) ?? [];
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const list = allowed ? `: ${allowed.map((v) => `'${String(v)}'`).join(', ')}` : '';
  return { at: [...prefix, ...at], why: `${error.message ?? 'is not valid'}${list}` };
}

/**
 * What the metaschema cannot see, over the schema as a graph (`schema-graph.ts`): a pattern RE2 cannot
 * run or a `$ref` that leads nowhere; a loop or an overlong chain of `$ref`s for one value
 * (`schema-chains.ts`); no finite value that matches (`schema-finite.ts`). Each step is linear in
 * the schema's size and none recurses; {@link pace} lets the loop turn between them.
 */
async function graphProblem(schema: unknown): Promise<Problem | null> {
  const { graph, problem } = await walkSchema(schema);
  if (problem) return problem;
  await pace();
  const loop = await chainProblem(graph);
  if (loop) return loop;
  await pace();
  return finiteProblem(graph);
}
