import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';
import { ApiError, clip } from '../../common/api-error';
import { isType, usePatternTest } from './json-schema-check';

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
  const problem = metaschemaProblem(schema) ?? new SchemaWalk(schema).problem();
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

type Problem = { at: (string | number)[]; why: string };

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

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SCHEMA_ONE = [
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const BOUNDS: [string, string][] = [
  ['minLength', 'maxLength'],
  ['minItems', 'maxItems'],
  ['minProperties', 'maxProperties'],
  ['minimum', 'maximum'],
];

/**
 * One pass over every subschema: patterns (and `patternProperties` keys) must compile for the
 * linear-time engine, local `$ref`s must resolve, and no subschema may be provably unsatisfiable
 * where the whole then is (a required property, every branch of an `anyOf`, the root). Recursion is
 * bounded by the body's nesting limit, and each `$ref` target is judged once.
 */
class SchemaWalk {
  private readonly refs = new Map<string, Problem | null | 'pending'>();
  constructor(private readonly root: unknown) {}

  problem(): Problem | null {
    return this.syntax(this.root, null) ?? this.unsatisfiable(this.root, []);
  }

  /** Patterns and references, anywhere in the schema. The path is built only for an error. */
  private syntax(s: unknown, at: Path): Problem | null {
    if (!isObject(s)) return null;
    const problem = (why: string, ...more: string[]): Problem => ({ at: [...toArray(at), ...more], why });
    if (typeof s.pattern === 'string') {
      const why = regexProblem(s.pattern);
      if (why) return problem(`'pattern' is not a regular expression intab can run: ${why}`);
    }
    if (isObject(s.patternProperties)) {
      for (const key of Object.keys(s.patternProperties)) {
        const why = regexProblem(key);
        if (why)
          return problem(
            `'${clip(key, 64)}' is not a regular expression intab can run: ${why}`,
            'patternProperties',
          );
      }
    }
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#') && resolve(this.root, s.$ref) === undefined)
      return problem(`'$ref' '${clip(s.$ref, 100)}' does not resolve to a schema in this document`);
    // Definitions count too, even those nothing refers to yet.
    for (const key of SCHEMA_MAPS) {
      const map = s[key];
      if (!isObject(map)) continue;
      const parent = { key, up: at };
      for (const name of Object.keys(map)) {
        const found = this.syntax(map[name], { key: name, up: parent });
        if (found) return found;
      }
    }
    for (const key of SCHEMA_LISTS) {
      const list = s[key];
      if (!Array.isArray(list)) continue;
      const parent = { key, up: at };
      for (let i = 0; i < list.length; i++) {
        const found = this.syntax(list[i], { key: i, up: parent });
        if (found) return found;
      }
    }
    for (const key of SCHEMA_ONE) {
      const found = isObject(s[key]) ? this.syntax(s[key], { key, up: at }) : null;
      if (found) return found;
    }
    return null;
  }

  /** A reason no value can match `s`, with where it lies, or null when one may. */
  private unsatisfiable(s: unknown, at: (string | number)[]): Problem | null {
    if (s === false) return { at, why: 'no value can match: the schema is false' };
    if (!isObject(s)) return null;
    const none = (why: string): Problem => ({ at, why: `no value can match: ${why}` });
    for (const [lo, hi] of BOUNDS) {
      const min = s[lo];
      const max = s[hi];
      if (typeof min === 'number' && typeof max === 'number' && min > max)
        return none(`'${lo}' ${min} is above '${hi}' ${max}`);
    }
    const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : null;
    if (Array.isArray(s.enum)) {
      if (s.enum.length === 0) return none("'enum' is empty");
      if (types && !s.enum.some((v) => types.some((t) => isType(t, v))))
        return none(`no 'enum' value is of type '${types.join("' or '")}'`);
    }
    if (Object.hasOwn(s, 'const') && types && !types.some((t) => isType(t, s.const)))
      return none(`'const' is not of type '${types.join("' or '")}'`);
    if (s.not === true || (isObject(s.not) && Object.keys(s.not).length === 0))
      return none("'not' excludes every value");
    const props = isObject(s.properties) ? s.properties : {};
    const required = Array.isArray(s.required) ? s.required.filter((k) => typeof k === 'string') : [];
    for (const key of required) {
      if (!Object.hasOwn(props, key) && s.additionalProperties === false && !isObject(s.patternProperties))
        return none(`required property '${clip(key, 64)}' is not allowed by 'additionalProperties': false`);
      if (Object.hasOwn(props, key)) {
        const problem = this.unsatisfiable(props[key], [...at, 'properties', key]);
        if (problem) return problem;
      }
    }
    for (const [i, sub] of asList(s.allOf).entries()) {
      const problem = this.unsatisfiable(sub, [...at, 'allOf', i]);
      if (problem) return problem;
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = asList(s[key]);
      const problems = branches.map((sub, i) => this.unsatisfiable(sub, [...at, key, i]));
      if (branches.length > 0 && problems.every(Boolean)) return problems.at(-1) ?? null;
    }
    if (
      typeof s.minItems === 'number' &&
      s.minItems > 0 &&
      s.items !== undefined &&
      !Array.isArray(s.items)
    ) {
      const problem = this.unsatisfiable(s.items, [...at, 'items']);
      if (problem) return problem;
    }
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) return this.ref(s.$ref);
    return null;
  }

  /** A `$ref` target judged once; one still being judged (a recursive schema) is taken as satisfiable. */
  private ref(ref: string): Problem | null {
    const known = this.refs.get(ref);
    if (known === 'pending') return null;
    if (known !== undefined) return known;
    this.refs.set(ref, 'pending');
    const path = pointer(ref);
    const problem = this.unsatisfiable(resolve(this.root, ref), path);
    this.refs.set(ref, problem);
    return problem;
  }
}

/** A path as a chain to the root: a walk over thousands of subschemas builds no arrays. */
type Path = { key: string | number; up: Path } | null;

function toArray(path: Path): (string | number)[] {
  const out: (string | number)[] = [];
  for (let p = path; p; p = p.up) out.push(p.key);
  return out.reverse();
}

/** The path segments of a local JSON pointer (`#/$defs/A` → `['$defs', 'A']`). */
function pointer(ref: string): string[] {
  return ref
    .slice(1)
    .split('/')
    .filter(Boolean)
    .map((raw) => {
      let key = raw;
      try {
        key = decodeURIComponent(raw);
      } catch {}
      return key.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** What a local `$ref` points at, or undefined; own keys only (`#/toString` resolves to nothing). */
function resolve(root: unknown, ref: string): unknown {
  let node: unknown = root;
  for (const key of pointer(ref)) {
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node === undefined || isObject(node) || typeof node === 'boolean' ? node : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

type Compiled = { re: RE2JS | null; problem: string | null };
const compiled = new Map<string, Compiled>();

/**
 * Why `pattern` cannot serve as a schema pattern, or null when it can: it must be an ECMAScript
 * regular expression (what JSON Schema specifies, and what grammar engines read) and compile on RE2,
 * which matches in time linear in the text (so no lookarounds and no backreferences).
 *
 * @example
 * regexProblem('^[a-z]+$') // → null
 * regexProblem('(')        // → 'missing closing ): `(`'
 */
export function regexProblem(pattern: string): string | null {
  return compile(pattern).problem;
}

/** Compiles once per pattern: a schema may repeat one pattern thousands of times. A few hundred are kept. */
function compile(pattern: string): Compiled {
  let c = compiled.get(pattern);
  if (c) return c;
  c = { re: null, problem: null };
  try {
    c.re = RE2JS.compile(pattern);
    new RegExp(pattern, 'u');
  } catch (err) {
    c.re = null;
    c.problem = String((err as Error).message).replace(/^error parsing regexp: /, '');
  }
  if (compiled.size >= 512) compiled.clear();
  compiled.set(pattern, c);
  return c;
}

usePatternTest((pattern, text) => compile(pattern).re?.test(text) ?? null);
