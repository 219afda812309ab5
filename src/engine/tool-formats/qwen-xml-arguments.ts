/**
 * The xgrammar structural tag of a Qwen3.5 call's parameters, `<parameter=name>\nvalue\n</parameter>\n`
 * each. A string value is raw text, as the published template writes it (`args_value | string`):
 * newlines, `<`, `>` and `&` as they are, no escapes, no entities, ending where `\n</parameter>\n`
 * first comes (xgrammar's `any_text` inside a tag, which compiles to a fast stop-string dispatch; a
 * character-level grammar excluding the end costs seconds per parameter over a real vocabulary). Other
 * values are JSON of their schema (`json_schema`, whose whitespace web-llm's request bounds). Between
 * parameters, the template's one newline. xgrammar's own `qwen_xml_parameter` writes strings as
 * escaped XML text and leaves whitespace unbounded.
 */
import { isRecord, pyJson } from './json-text';
import { schemaTypes } from './schema-types';

type Format = Record<string, unknown>;

/** What ends a raw value: the one text a string value cannot contain. */
export const VALUE_END = '\n</parameter>\n';

/** The empty text (xgrammar 0.1.27 aborts on an empty `const_string`). */
const EMPTY: Format = { type: 'grammar', grammar: 'root ::= ""' };

/**
 * The tag content, in {@link qwenXmlFormat}'s `tags` (read by wllama's GBNF builder), of a tool whose
 * schema lists no properties: {@link freeParameters}' parameters.
 */
export const QWEN_FREE_PARAMETERS = 'qwen_xml_free_parameters';

/** Most parameters a call of a tool whose schema lists none may pass (the grammar has no loop). */
export const MAX_FREE_PARAMETERS = 8;

/**
 * The structural-tag content for the parameters of a tool whose schema lists `properties`: each in
 * the schema's order, required ones always, the others optional, each value by its schema.
 *
 * @example
 * qwenXmlParameters({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] });
 * // {type:'sequence', elements:[{type:'tag', begin:'<parameter=path>\n', content:{type:'any_text'}, end:'\n</parameter>\n'}]}
 */
export function qwenXmlParameters(schema: Record<string, unknown>): Format {
  const props = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const elements = Object.entries(props).map(([name, spec]) => {
    const one = parameter(`<parameter=${name}>\n`, spec, schema);
    return required.includes(name) ? one : { type: 'or', elements: [one, EMPTY] };
  });
  return { type: 'sequence', elements };
}

/**
 * Parameters of a tool whose schema lists none: up to {@link MAX_FREE_PARAMETERS}, any names,
 * values raw (the parser types them as it can).
 */
export function freeParameters(): Format {
  const one: Format = {
    type: 'sequence',
    elements: [
      { type: 'grammar', grammar: 'root ::= "<parameter=" [A-Za-z0-9_.\\-]+ ">\\n"' },
      { type: 'tag', begin: '', content: { type: 'any_text' }, end: VALUE_END },
    ],
  };
  let rest: Format = EMPTY;
  for (let i = 0; i < MAX_FREE_PARAMETERS; i++)
    rest = { type: 'or', elements: [{ type: 'sequence', elements: [one, rest] }, EMPTY] };
  return rest;
}

/**
 * How a parameter's value is written: one of its members bare, raw text, or JSON of its schema, or
 * else (`python`) the template's spelling of a boolean or null (`True`, `False`, `None`).
 */
export type QwenValueKind =
  | { kind: 'members'; members: string[] }
  | { kind: 'raw'; pattern?: string }
  | { kind: 'json'; python: string[] };

/**
 * A parameter value as the published template writes it: a string as itself, a mapping or list
 * `| tojson` (Python's separators), anything else `| string`, which is Python's `str`: `True`,
 * `False`, `None` (llama.cpp's renderer writes the same).
 *
 * @example
 * templateValue(true); // 'True'
 * templateValue({ a: null }); // '{"a": null}'
 */
export function templateValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  return pyJson(v);
}

/** The template's bare literals, read back as the JSON values they spell. */
export const PYTHON_LITERALS: Readonly<Record<string, boolean | null>> = {
  True: true,
  False: false,
  None: null,
};

/**
 * How the value of the parameter `spec` of `tool` is written: an enum or const as its members bare
 * (as {@link templateValue} writes them), raw text where a string is allowed (or nothing says what
 * is), else JSON of the schema, or the template's `True`/`False`/`None` where the schema allows a
 * boolean or null. Both engines' grammars follow it.
 *
 * @example
 * qwenValueKind({ enum: ['c', 1, true] }, tool); // { kind: 'members', members: ['c', '1', 'True'] }
 * qwenValueKind({ type: ['string', 'null'] }, tool); // { kind: 'raw' }
 * qwenValueKind({ type: ['boolean', 'null'] }, tool); // { kind: 'json', python: ['True', 'False', 'None'] }
 */
export function qwenValueKind(spec: unknown, tool: Record<string, unknown>): QwenValueKind {
  const resolved = resolveRef(spec, tool);
  if (isRecord(resolved)) {
    const members = Array.isArray(resolved.enum)
      ? resolved.enum
      : 'const' in resolved
        ? [resolved.const]
        : null;
    if (members) return { kind: 'members', members: members.map(templateValue) };
  }
  const types = schemaTypes(resolved);
  if (types.size === 0 || types.has('string')) {
    // A string held to a pattern (a custom tool's grammar) is still raw text, matching it whole.
    const only = isRecord(resolved) && types.size === 1 && typeof resolved.pattern === 'string';
    return only ? { kind: 'raw', pattern: resolved.pattern as string } : { kind: 'raw' };
  }
  const python = [...(types.has('boolean') ? ['True', 'False'] : []), ...(types.has('null') ? ['None'] : [])];
  return { kind: 'json', python };
}

/** One parameter by its schema, as {@link qwenValueKind} says (with the tool's `$defs` for JSON). */
function parameter(begin: string, spec: unknown, tool: Record<string, unknown>): Format {
  const between = (value: Format): Format => ({
    type: 'sequence',
    elements: [{ type: 'const_string', value: begin }, value, { type: 'const_string', value: VALUE_END }],
  });
  const value = qwenValueKind(spec, tool);
  if (value.kind === 'members') {
    const bare = value.members.map((v) => JSON.stringify(v));
    return between({ type: 'grammar', grammar: `root ::= ${bare.join(' | ')}` });
  }
  if (value.kind === 'raw' && value.pattern !== undefined)
    return between({ type: 'regex', pattern: value.pattern });
  if (value.kind === 'raw') return { type: 'tag', begin, content: { type: 'any_text' }, end: VALUE_END };
  const defs = Object.fromEntries(
    (['$defs', 'definitions'] as const).flatMap((k) => (tool[k] === undefined ? [] : [[k, tool[k]]])),
  );
  const json: Format = { type: 'json_schema', json_schema: { ...(isRecord(spec) ? spec : {}), ...defs } };
  if (value.python.length === 0) return between(json);
  const python = value.python.map((v) => JSON.stringify(v)).join(' | ');
  return between({ type: 'or', elements: [json, { type: 'grammar', grammar: `root ::= ${python}` }] });
}

/** A property's schema with a local `$ref` (`#/$defs/X`, `#/definitions/X`) looked up once. */
function resolveRef(spec: unknown, tool: Record<string, unknown>): unknown {
  if (!isRecord(spec) || typeof spec.$ref !== 'string') return spec;
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(spec.$ref);
  const defs = m ? tool[m[1] as string] : undefined;
  return isRecord(defs) && m ? defs[m[2] as string] : spec;
}
