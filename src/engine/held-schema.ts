/**
 * The JSON Schema a grammar holds output to, with the request's `strict` written into it, so both
 * engines' grammars read one request the same way. Both compile a schema as OpenAI's strict mode
 * reads it: llama.cpp's GBNF here (json-schema-gbnf.ts) and xgrammar's `strictMode` in web-llm close
 * an object whose schema does not say `additionalProperties`, and xgrammar closes a tuple that does
 * not say `items`. A non-strict schema means what JSON Schema means: those admit members and items
 * they do not declare. Spelling that out in the schema, rather than passing a mode to each compiler,
 * lets one grammar hold tools of both kinds (Mistral's one list of every call).
 */

type Schema = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const ONE = [
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
/** Keywords whose value is a list of subschemas. */
const LIST = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * `schema` as a grammar should hold output to it: as it is when `strict` (or left unsaid, which
 * intab's request layer has already resolved to OpenAI's default), else with every object and
 * tuple that is silent about what else it admits opened, as JSON Schema defaults them.
 *
 * @example
 * heldSchema({ type: 'object', properties: { a: { type: 'integer' } } }, false);
 * // { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: true }
 */
export function heldSchema(schema: Schema, strict: boolean | null): Schema {
  return strict === false ? (opened(schema) as Schema) : schema;
}

/** A copy of `node` with its silent objects and tuples open; values that are data are kept as they are. */
function opened(node: unknown): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
  const s = node as Schema;
  const out: Schema = { ...s };
  for (const k of ONE)
    if (k in s) out[k] = Array.isArray(s[k]) ? (s[k] as unknown[]).map(opened) : opened(s[k]);
  for (const k of LIST) if (Array.isArray(s[k])) out[k] = (s[k] as unknown[]).map(opened);
  for (const k of MAP) {
    const m = s[k];
    if (typeof m === 'object' && m !== null && !Array.isArray(m))
      out[k] = Object.fromEntries(Object.entries(m).map(([name, sub]) => [name, opened(sub)]));
  }
  // `unevaluatedProperties` already says what else the object admits; `true` beside it would void it.
  if (isObjectSchema(s) && !('additionalProperties' in s) && !('unevaluatedProperties' in s))
    out.additionalProperties = true;
  if (Array.isArray(s.prefixItems) && !('items' in s) && !('unevaluatedItems' in s)) out.items = true;
  return out;
}

/** Whether `s` describes objects, as the grammar builders read a schema: by `type`, or by object keywords. */
function isObjectSchema(s: Schema): boolean {
  const t = s.type;
  if (t === 'object') return true;
  if (Array.isArray(t)) return t.includes('object');
  return t === undefined && typeof s.$ref !== 'string' && ('properties' in s || 'required' in s);
}
