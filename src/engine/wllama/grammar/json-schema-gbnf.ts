/**
 * JSON Schema as a llama.cpp GBNF grammar, so the model can only write JSON that validates. Covers
 * what structured outputs use: types (and type lists), `enum`, `const`, `properties` with
 * `required` and `additionalProperties`, `items`/`prefixItems` with `minItems`/`maxItems`, string
 * `minLength`/`maxLength`/`pattern`/`format` (date, time, date-time, uuid, email), integer
 * `minimum`/`maximum` (exclusive too), `anyOf`/`oneOf`, `allOf` of objects, and `$ref` into
 * `$defs`/`definitions` (recursion included). What a grammar cannot enforce (`not`, `if`,
 * `uniqueItems`, `multipleOf`…) is refused with {@link UnsupportedSchemaError} rather than ignored.
 *
 * Whitespace between tokens is bounded (one newline or space plus at most 20 spaces or tabs): an
 * unbounded `ws*` lets a small model write spaces until `max_output_tokens`.
 */
import { GbnfBuilder, gbnfClass, gbnfLiteral } from './gbnf';
import { regexToGbnf, UnsupportedPatternError } from './regex-gbnf';

/** A schema (or part of one) the grammar cannot hold the output to; `path` is where, in JSON Pointer. */
export class UnsupportedSchemaError extends Error {
  override readonly name = 'UnsupportedSchemaError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

type Schema = Record<string, unknown> | boolean;

/** Keywords whose constraint no grammar here enforces; a schema using them is refused. */
const UNSUPPORTED = [
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'patternProperties',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'uniqueItems',
  'multipleOf',
  'minProperties',
  'maxProperties',
];

/** Largest `maxItems`/`maxLength` spelled out as a bounded repetition (llama.cpp expands them). */
const MAX_BOUND = 4096;

const PRIMITIVES: Record<string, string> = {
  ws: '([ \\t\\n] [ \\t]{0,20})?',
  'json-char': '[^"\\\\\\x7f\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})',
  'json-string': '"\\"" json-char* "\\""',
  'json-int': '"-"? json-nat',
  'json-nat': '[0-9] | [1-9] [0-9]{0,15}',
  'json-number': '"-"? json-nat ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?',
  'json-number-nonneg': 'json-nat ("." [0-9]{1,16})?',
  'json-boolean': '"true" | "false"',
  'json-null': '"null"',
  'json-value': 'json-object | json-array | json-string | json-number | json-boolean | json-null',
  'json-object':
    '"{" ws (json-string ws ":" ws json-value (ws "," ws json-string ws ":" ws json-value)*)? ws "}"',
  'json-array': '"[" ws (json-value (ws "," ws json-value)*)? ws "]"',
  date: '[0-9]{4} "-" (("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | "02-" ("0" [1-9] | "1" [0-9] | "2" [0-8]))',
  time: '([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,3})? ("Z" | [+-] ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9])',
  'date-time': 'date "T" time',
  uuid: '[0-9a-f]{8} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{12}',
  email:
    '[a-z0-9]{1,20} ("." [a-z0-9]{1,20}){0,2} "@" [a-z0-9]{1,20} ("." [a-z0-9]{1,20}){0,2} "." [a-z]{2,6}',
};

/** Which primitives each primitive uses, so only what a grammar needs is written out. */
const PRIMITIVE_DEPS: Record<string, string[]> = {
  'json-string': ['json-char'],
  'json-int': ['json-nat'],
  'json-number': ['json-nat'],
  'json-number-nonneg': ['json-nat'],
  'json-value': ['json-object', 'json-array', 'json-string', 'json-number', 'json-boolean', 'json-null'],
  'json-object': ['ws', 'json-string', 'json-value'],
  'json-array': ['ws', 'json-value'],
  'date-time': ['date', 'time'],
};

/**
 * A complete grammar whose `root` is JSON matching `schema`.
 *
 * @example
 * jsonSchemaToGbnf({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] });
 * // 'root ::= "{" ws "\\"a\\"" ws ":" ws json-int ws "}"\n…'
 */
export function jsonSchemaToGbnf(schema: Record<string, unknown>): string {
  const g = new GbnfBuilder();
  const root = g.reserve('root');
  g.fill(root, new JsonSchemaRules(g, schema).expression(schema, ''));
  return g.toString();
}

/**
 * Turns schemas into rules of a shared {@link GbnfBuilder}, so several schemas (one per tool) can live
 * in one grammar. `root` is the document `$ref`s resolve against.
 *
 * @example
 * const rules = new JsonSchemaRules(g, tool.parameters);
 * g.add('args-get-weather', rules.expression(tool.parameters, ''));
 */
export class JsonSchemaRules {
  private readonly refs = new Map<string, string>();

  constructor(
    private readonly g: GbnfBuilder,
    private readonly root: Record<string, unknown>,
    private readonly prefix = '',
  ) {}

  /** A GBNF expression for `schema`; `path` (JSON Pointer) names where it is, for errors. */
  expression(schema: Schema, path: string): string {
    if (schema === true || (typeof schema === 'object' && Object.keys(schema).length === 0)) {
      return this.prim('json-value');
    }
    if (schema === false) throw new UnsupportedSchemaError(path, 'The schema `false` matches nothing.');
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new UnsupportedSchemaError(path, 'A schema must be an object or a boolean.');
    }
    for (const k of UNSUPPORTED) {
      if (k in schema) {
        throw new UnsupportedSchemaError(
          `${path}/${k}`,
          `The JSON Schema keyword '${k}' cannot be enforced by llama.cpp's grammar; remove it.`,
        );
      }
    }
    if (typeof schema.$ref === 'string') return this.ref(schema.$ref, path);
    if ('const' in schema) return gbnfLiteral(JSON.stringify(schema.const));
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length === 0)
        throw new UnsupportedSchemaError(`${path}/enum`, 'An empty enum matches nothing.');
      return group(schema.enum.map((v) => gbnfLiteral(JSON.stringify(v))));
    }
    const alternatives = (Array.isArray(schema.anyOf) ? schema.anyOf : schema.oneOf) as Schema[] | undefined;
    if (Array.isArray(alternatives)) {
      const key = Array.isArray(schema.anyOf) ? 'anyOf' : 'oneOf';
      const base = withoutKeys(schema, ['anyOf', 'oneOf']);
      return group(
        alternatives.map((s, i) =>
          this.expression(typeof s === 'object' ? { ...base, ...s } : s, `${path}/${key}/${i}`),
        ),
      );
    }
    if (Array.isArray(schema.allOf)) return this.expression(mergeAllOf(schema, path), path);
    const type = schema.type;
    if (Array.isArray(type)) {
      return group(type.map((t) => this.typed(String(t), schema, path)));
    }
    if (typeof type === 'string') return this.typed(type, schema, path);
    if (schema.properties || schema.additionalProperties !== undefined || schema.required) {
      return this.typed('object', schema, path);
    }
    if (schema.items || schema.prefixItems) return this.typed('array', schema, path);
    return this.prim('json-value');
  }

  private typed(type: string, schema: Record<string, unknown>, path: string): string {
    switch (type) {
      case 'object':
        return this.object(schema, path);
      case 'array':
        return this.array(schema, path);
      case 'string':
        return this.string(schema, path);
      case 'integer':
        return this.integer(schema, path);
      case 'number':
        // Bounds are not spelled out for decimals; a non-negative minimum at least drops the sign.
        return typeof schema.minimum === 'number' && schema.minimum >= 0
          ? this.prim('json-number-nonneg')
          : this.prim('json-number');
      case 'boolean':
        return this.prim('json-boolean');
      case 'null':
        return this.prim('json-null');
      default:
        throw new UnsupportedSchemaError(`${path}/type`, `Unknown JSON Schema type '${type}'.`);
    }
  }

  private object(schema: Record<string, unknown>, path: string): string {
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    for (const name of required) {
      if (!(name in props)) {
        throw new UnsupportedSchemaError(
          `${path}/required`,
          `The required property '${name}' has no schema in 'properties'.`,
        );
      }
    }
    const ws = this.prim('ws');
    const member = (name: string): string => {
      const value = this.expression(props[name] as Schema, `${path}/properties/${pointer(name)}`);
      return `${gbnfLiteral(JSON.stringify(name))} ${ws} ":" ${ws} ${value}`;
    };
    const names = Object.keys(props);
    const req = names.filter((n) => required.has(n));
    const opt = names.filter((n) => !required.has(n));
    const extra = schema.additionalProperties;
    let tail = '';
    if (extra !== undefined && extra !== false) {
      const value =
        extra === true
          ? this.prim('json-value')
          : this.expression(extra as Schema, `${path}/additionalProperties`);
      const kv = this.g.add(`${this.prefix}extra-kv`, `${this.prim('json-string')} ${ws} ":" ${ws} ${value}`);
      tail = kv;
    }
    const sep = `${ws} "," ${ws}`;
    let body: string;
    if (req.length > 0) {
      const optional = opt.map((n) => `(${sep} ${member(n)})?`);
      const extras = tail ? [`(${sep} ${tail})*`] : [];
      body = [req.map(member).join(` ${sep} `), ...optional, ...extras].join(' ');
    } else {
      // No required member: whichever member comes first has no comma before it.
      const firsts = opt.map((n, i) => {
        const rest = opt.slice(i + 1).map((m) => `(${sep} ${member(m)})?`);
        const extras = tail ? [`(${sep} ${tail})*`] : [];
        return [member(n), ...rest, ...extras].join(' ');
      });
      if (tail) firsts.push(`${tail} (${sep} ${tail})*`);
      body = firsts.length === 0 ? '' : `(${firsts.map((f) => `(${f})`).join(' | ')})?`;
    }
    const rule = this.g.add(`${this.prefix}obj`, `"{" ${ws} ${body} ${ws} "}"`.replace(/ {2,}/g, ' '));
    return rule;
  }

  private array(schema: Record<string, unknown>, path: string): string {
    const ws = this.prim('ws');
    const sep = `${ws} "," ${ws}`;
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
    const items = schema.items === undefined ? true : (schema.items as Schema);
    const min = bound(schema.minItems, 0, `${path}/minItems`);
    const maxRaw = schema.maxItems === undefined ? null : bound(schema.maxItems, 0, `${path}/maxItems`);
    if (maxRaw !== null && maxRaw < min) {
      throw new UnsupportedSchemaError(`${path}/maxItems`, 'maxItems is below minItems.');
    }
    const fixed = prefix.map((s, i) => this.expression(s, `${path}/prefixItems/${i}`));
    if (fixed.length > 0) {
      // A tuple: its prefix in order; what follows follows `items` (false: nothing).
      if (min > fixed.length)
        throw new UnsupportedSchemaError(`${path}/minItems`, 'minItems beyond prefixItems is not supported.');
      const rest = items === false ? '' : ` (${sep} ${this.expression(items, `${path}/items`)})*`;
      // Each item after the first comes with its comma; items past minItems may stop the list.
      let seq = '';
      for (let i = fixed.length - 1; i >= 0; i--) {
        const tail = seq === '' ? rest : i + 1 < min ? ` ${sep} ${seq}` : ` (${sep} ${seq})?`;
        seq = `${fixed[i]}${tail}`;
      }
      if (min === 0) seq = `(${seq})?`;
      return this.g.add(`${this.prefix}arr`, `"[" ${ws} ${seq} ${ws} "]"`);
    }
    const item = this.g.add(`${this.prefix}item`, this.expression(items, `${path}/items`));
    let body: string;
    if (maxRaw === 0) body = '';
    else if (min === 0)
      body =
        maxRaw === null ? `(${item} (${sep} ${item})*)?` : `(${item} (${sep} ${item}){0,${maxRaw - 1}})?`;
    else {
      const more = maxRaw === null ? `{${min - 1},}` : `{${min - 1},${maxRaw - 1}}`;
      body = `${item} (${sep} ${item})${more}`;
    }
    return this.g.add(`${this.prefix}arr`, `"[" ${ws} ${body} ${ws} "]"`.replace(/ {2,}/g, ' '));
  }

  private string(schema: Record<string, unknown>, path: string): string {
    if (typeof schema.pattern === 'string') {
      try {
        return `"\\"" ${regexToGbnf(schema.pattern)} "\\""`;
      } catch (err) {
        if (err instanceof UnsupportedPatternError)
          throw new UnsupportedSchemaError(`${path}/pattern`, err.message);
        throw err;
      }
    }
    const format = typeof schema.format === 'string' ? schema.format : null;
    if (format && format in PRIMITIVES && ['date', 'time', 'date-time', 'uuid', 'email'].includes(format)) {
      return `"\\"" ${this.prim(format)} "\\""`;
    }
    const min = bound(schema.minLength, 0, `${path}/minLength`);
    const max = schema.maxLength === undefined ? null : bound(schema.maxLength, 0, `${path}/maxLength`);
    if (min === 0 && max === null) return this.prim('json-string');
    if (max !== null && max < min)
      throw new UnsupportedSchemaError(`${path}/maxLength`, 'maxLength is below minLength.');
    this.prim('json-char');
    const reps = max === null ? `{${min},}` : min === max ? `{${min}}` : `{${min},${max}}`;
    return `"\\"" json-char${reps} "\\""`;
  }

  private integer(schema: Record<string, unknown>, path: string): string {
    let lo = numberOrNull(schema.minimum);
    let hi = numberOrNull(schema.maximum);
    const exLo = numberOrNull(schema.exclusiveMinimum);
    const exHi = numberOrNull(schema.exclusiveMaximum);
    if (exLo !== null) lo = Math.max(lo ?? Number.NEGATIVE_INFINITY, Math.floor(exLo) + 1);
    if (exHi !== null) hi = Math.min(hi ?? Number.POSITIVE_INFINITY, Math.ceil(exHi) - 1);
    if (lo !== null) lo = Math.ceil(lo);
    if (hi !== null) hi = Math.floor(hi);
    if (lo === null && hi === null) return this.prim('json-int');
    if (lo !== null && hi !== null && hi < lo) {
      throw new UnsupportedSchemaError(
        `${path}/maximum`,
        'The integer range is empty (maximum below minimum).',
      );
    }
    const LIMIT = 1e15;
    const alts: string[] = [];
    const from = lo ?? -LIMIT;
    const to = hi ?? LIMIT;
    if (from < 0)
      alts.push(...rangeAlternatives(Math.max(1, -Math.min(to, -1)), -from).map((a) => `"-" ${a}`));
    if (to >= 0) alts.push(...rangeAlternatives(Math.max(0, from), to));
    return group(alts);
  }

  private ref(ref: string, path: string): string {
    const known = this.refs.get(ref);
    if (known) return known;
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
    const defs = m ? (this.root[m[1] as string] as Record<string, Schema> | undefined) : undefined;
    const name = m ? decodePointer(m[2] as string) : '';
    const target = defs?.[name];
    if (target === undefined) {
      throw new UnsupportedSchemaError(
        `${path}/$ref`,
        `Cannot resolve '$ref' ${ref}: only '#/$defs/…' and '#/definitions/…' are supported.`,
      );
    }
    const rule = this.g.reserve(`${this.prefix}ref-${name}`);
    this.refs.set(ref, rule);
    this.g.fill(rule, this.expression(target, `/${m?.[1]}/${m?.[2]}`));
    return rule;
  }

  /** A shared primitive rule (and the ones it uses), by name. */
  private prim(name: string): string {
    if (!this.g.has(name)) {
      this.g.shared(name, PRIMITIVES[name] as string);
      for (const dep of PRIMITIVE_DEPS[name] ?? []) this.prim(dep);
    }
    return name;
  }
}

/**
 * GBNF alternatives matching the decimal integers `lo`..`hi` (0 ≤ lo ≤ hi), without leading zeros:
 * one alternative per digit count, each split where its digits stop being free.
 *
 * @example
 * rangeAlternatives(5, 12); // ['[5-9]', '"1" [0-2]']
 */
export function rangeAlternatives(lo: number, hi: number): string[] {
  if (lo > hi) return [];
  const out: string[] = [];
  const loDigits = String(lo).length;
  const hiDigits = String(hi).length;
  for (let d = loDigits; d <= hiDigits; d++) {
    const first = d === 1 ? 0 : 10 ** (d - 1);
    const last = 10 ** d - 1;
    const a = Math.max(lo, first);
    const b = Math.min(hi, last);
    if (a <= b) out.push(sameLength(String(a), String(b)));
  }
  return out;
}

/** Digits a..b of the same length, as a GBNF expression. */
function sameLength(a: string, b: string): string {
  if (a.length === 1) return a === b ? gbnfLiteral(a) : gbnfClass([[a.charCodeAt(0), b.charCodeAt(0)]]);
  if (a[0] === b[0]) return `${gbnfLiteral(a[0] as string)} ${sameLength(a.slice(1), b.slice(1))}`;
  const rest = a.length - 1;
  const lowFull = /^0*$/.test(a.slice(1));
  const highFull = /^9*$/.test(b.slice(1));
  const alts: string[] = [];
  const start = Number(a[0]) + (lowFull ? 0 : 1);
  const end = Number(b[0]) - (highFull ? 0 : 1);
  if (!lowFull) alts.push(`${gbnfLiteral(a[0] as string)} ${sameLength(a.slice(1), '9'.repeat(rest))}`);
  if (start <= end) {
    const head = start === end ? gbnfLiteral(String(start)) : gbnfClass([[48 + start, 48 + end]]);
    alts.push(`${head} [0-9]${rest > 1 ? `{${rest}}` : ''}`);
  }
  if (!highFull) alts.push(`${gbnfLiteral(b[0] as string)} ${sameLength('0'.repeat(rest), b.slice(1))}`);
  return group(alts);
}

function group(alternatives: string[]): string {
  return alternatives.length === 1 ? (alternatives[0] as string) : `(${alternatives.join(' | ')})`;
}

function numberOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function bound(v: unknown, fallback: number, path: string): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new UnsupportedSchemaError(path, 'Must be a non-negative integer.');
  }
  if (v > MAX_BOUND) throw new UnsupportedSchemaError(path, `Bounds above ${MAX_BOUND} are not supported.`);
  return v;
}

function withoutKeys(schema: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => !keys.includes(k)));
}

/** `allOf` of object schemas as one object schema: properties and required lists united. */
function mergeAllOf(schema: Record<string, unknown>, path: string): Record<string, unknown> {
  const parts = [withoutKeys(schema, ['allOf']), ...(schema.allOf as Schema[])];
  const merged: Record<string, unknown> = { type: 'object', properties: {}, required: [] };
  for (const [i, part] of parts.entries()) {
    if (typeof part !== 'object')
      throw new UnsupportedSchemaError(`${path}/allOf/${i}`, 'allOf needs object schemas.');
    if (part.type !== undefined && part.type !== 'object') {
      throw new UnsupportedSchemaError(`${path}/allOf/${i}`, 'Only allOf of object schemas is supported.');
    }
    Object.assign(merged.properties as object, part.properties ?? {});
    (merged.required as string[]).push(...((part.required as string[] | undefined) ?? []));
    if (part.additionalProperties !== undefined) merged.additionalProperties = part.additionalProperties;
  }
  return merged;
}

function pointer(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function decodePointer(name: string): string {
  return name.replace(/~1/g, '/').replace(/~0/g, '~');
}
