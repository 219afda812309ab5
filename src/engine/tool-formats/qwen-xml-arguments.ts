/**
 * The grammar of a Qwen3.5 call's parameters, `<parameter=name>\nvalue\n</parameter>\n` each, as a
 * structural-tag format. A string value is raw text up to the closing `</parameter>`, as the
 * published template writes it (`args_value | string`) and Qwen's parser (vLLM's `qwen3_coder`)
 * reads it: newlines, `<`, `>` and `&` as they are, no escapes, no entities. Other values are JSON
 * of their schema (xgrammar's `json_schema`, whose whitespace web-llm's request bounds). xgrammar's
 * own `qwen_xml_parameter` writes strings as escaped XML text and leaves whitespace unbounded.
 */
import { isRecord } from './json-text';
import { schemaTypes } from './schema-types';

type Format = Record<string, unknown>;

/**
 * What no raw string value can contain: its closing tag, which ends it (the one string that cannot
 * be expressed as a value), and the call's closing tag, which ends the call region for the parser.
 */
export const RAW_VALUE_EXCLUDES = ['</parameter>', '</tool_call>'] as const;

/**
 * EBNF for any text that contains none of `excluded`, each of which starts with the same character
 * and has it nowhere else (so a mismatch falls back to the start, or to that character's state):
 * one rule per proper prefix of the excluded strings.
 *
 * @example
 * textWithout(['</p>']); // 'root ::= s0\ns0 ::= "" | [^<] s0 | "<" s1\n…'
 */
export function textWithout(excluded: readonly string[]): string {
  const lead = excluded[0]?.[0] ?? '';
  if (excluded.some((s) => s[0] !== lead || s.slice(1).includes(lead)))
    throw new Error('textWithout: every excluded string must start with the one character it has once');
  const prefixes = [''];
  for (const s of excluded)
    for (let i = 1; i < s.length; i++) if (!prefixes.includes(s.slice(0, i))) prefixes.push(s.slice(0, i));
  const state = (prefix: string) => `s${prefixes.indexOf(prefix)}`;
  const rules = prefixes.map((prefix) => {
    const next = new Set<string>([lead]);
    const alts = ['""'];
    for (const s of excluded) {
      const c = s[prefix.length] as string;
      if (!s.startsWith(prefix) || next.has(c)) continue;
      next.add(c);
      // The whole excluded string is no transition at all.
      if (prefix.length + 1 < s.length) alts.push(`${literal(c)} ${state(prefix + c)}`);
    }
    alts.push(`[^${[...next].map(classChar).join('')}] s0`, `${literal(lead)} ${state(lead)}`);
    return `${state(prefix)} ::= ${alts.join(' | ')}`;
  });
  return ['root ::= s0', ...rules].join('\n');
}

const RAW_VALUE = textWithout(RAW_VALUE_EXCLUDES);
/** The empty text (xgrammar 0.1.27 aborts on an empty `const_string`). */
const EMPTY: Format = { type: 'grammar', grammar: 'root ::= ""' };

/**
 * The structural-tag content for the parameters of a tool whose schema lists `properties`: each in
 * the schema's order, required ones always, the others optional, each value by its schema.
 *
 * @example
 * qwenXmlParameters({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] });
 * // {type:'sequence', elements:[{type:'sequence', elements:[{const '<parameter=path>\n'}, raw, {const '\n</parameter>\n'}]}, …]}
 */
export function qwenXmlParameters(schema: Record<string, unknown>): Format {
  const props = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const elements = Object.entries(props).map(([name, spec]) => {
    const one: Format = {
      type: 'sequence',
      elements: [
        { type: 'const_string', value: `<parameter=${name}>\n` },
        parameterValue(spec, schema),
        { type: 'const_string', value: '\n</parameter>\n' },
      ],
    };
    return required.includes(name) ? one : { type: 'or', elements: [one, EMPTY] };
  });
  return { type: 'sequence', elements };
}

/**
 * Parameters of a tool whose schema lists none (any names, values raw): the parser types them as
 * it can.
 */
export const ANY_PARAMETERS: Format = {
  type: 'grammar',
  grammar: `${RAW_VALUE.replace('root ::= s0', 'value ::= s0')}\nroot ::= "" | "<parameter=" [A-Za-z0-9_.\\-]+ ">\\n" value "\\n</parameter>\\n" root`,
};

/**
 * One value by its schema: an enum or const as its members written bare, raw text where a string is
 * allowed (or nothing says what is), else JSON of the schema (with the tool's `$defs`).
 */
function parameterValue(spec: unknown, tool: Record<string, unknown>): Format {
  const resolved = resolveRef(spec, tool);
  if (isRecord(resolved)) {
    const members = Array.isArray(resolved.enum)
      ? resolved.enum
      : 'const' in resolved
        ? [resolved.const]
        : null;
    if (members) {
      const bare = members.map((v) => literal(typeof v === 'string' ? v : JSON.stringify(v)));
      return { type: 'grammar', grammar: `root ::= ${bare.join(' | ')}` };
    }
  }
  const types = schemaTypes(resolved);
  if (types.size === 0 || types.has('string')) return { type: 'grammar', grammar: RAW_VALUE };
  const defs = Object.fromEntries(
    (['$defs', 'definitions'] as const).flatMap((k) => (tool[k] === undefined ? [] : [[k, tool[k]]])),
  );
  return { type: 'json_schema', json_schema: { ...(isRecord(spec) ? spec : {}), ...defs } };
}

/** A property's schema with a local `$ref` (`#/$defs/X`, `#/definitions/X`) looked up once. */
function resolveRef(spec: unknown, tool: Record<string, unknown>): unknown {
  if (!isRecord(spec) || typeof spec.$ref !== 'string') return spec;
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(spec.$ref);
  const defs = m ? tool[m[1] as string] : undefined;
  return isRecord(defs) && m ? defs[m[2] as string] : spec;
}

/** An EBNF string literal. */
function literal(text: string): string {
  return JSON.stringify(text);
}

/** A character as it goes inside an EBNF character class. */
function classChar(c: string): string {
  return /[\]\\^-]/.test(c) ? `\\${c}` : c;
}
