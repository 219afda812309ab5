/**
 * JSON Schema as a llama.cpp GBNF grammar, so the model can only write JSON that validates. Covers
 * what structured outputs use: types (and type lists), `enum`, `const`, `properties` with
 * `required` and `additionalProperties`, `items`/`prefixItems` with `minItems`/`maxItems`, string
 * `minLength`/`maxLength`/`pattern`/`format` (date, time, date-time, uuid, email), integer
 * `minimum`/`maximum` (exclusive too), `anyOf`/`oneOf`, `allOf` of objects, and `$ref` into
 * `$defs`/`definitions` (recursion included). What a grammar cannot enforce (`not`, `if`,
 * `uniqueItems`, `multipleOf`…) is refused with {@link UnsupportedSchemaError} rather than ignored.
 *
 * The conversion is linear in the schema, as llama.cpp's own json-schema-to-grammar: rules are
 * keyed and reused by content, optional properties are one chain of rules, each `$ref` becomes one
 * rule (built after the schema that names it, so chains of definitions cost no stack), and it counts
 * its steps and depth against the budgets of grammar-budget.ts.
 */
import { clip } from '../../../common/api-error';
import { GbnfBuilder, gbnfLiteral } from './gbnf';
import { GrammarTooComplexError, MAX_SCHEMA_DEPTH, type StepBudget, TOO_COMPLEX } from './grammar-budget';
import { group, integerRange } from './integer-gbnf';
import { FORMATS, PRIMITIVE_DEPS, PRIMITIVES } from './json-primitives';
import { regexToGbnf, UnsupportedPatternError } from './regex-gbnf';
import { RefError, RefTable } from './schema-refs';
import {
  ANNOTATIONS,
  allOfRule,
  arrayRule,
  bound,
  objectRule,
  type SchemaContext,
  UnsupportedSchemaError,
  withoutKeys,
} from './schema-shapes';

export { rangeAlternatives } from './integer-gbnf';
export { UnsupportedSchemaError } from './schema-shapes';

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

/**
 * A complete grammar whose `root` is JSON matching `schema`.
 *
 * @example
 * jsonSchemaToGbnf({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] });
 * // 'root ::= "{" ws a-kv ws "}"\n…'
 */
export function jsonSchemaToGbnf(schema: Record<string, unknown>): string {
  const g = new GbnfBuilder();
  const root = g.reserve('root');
  g.fill(root, new JsonSchemaRules(g, schema).expression(schema, ''));
  return g.toString();
}

/**
 * Turns schemas into rules of a shared {@link GbnfBuilder}, so several schemas (one per tool) can live
 * in one grammar. `root` is the document `$ref`s resolve against. With `openObjects`, an object
 * whose schema does not say `additionalProperties` admits any other member (JSON Schema's default).
 *
 * @example
 * const rules = new JsonSchemaRules(g, tool.parameters);
 * g.add('args-get-weather', rules.expression(tool.parameters, ''));
 */
export class JsonSchemaRules implements SchemaContext {
  private readonly refs: RefTable;
  private readonly refRules = new Map<string, string>();
  /** `$ref` rules named but not yet built: built after the expression that named them. */
  private readonly pending: Array<{ rule: string; schema: Schema; pointer: string }> = [];
  private depth = 0;
  private paced = false;

  constructor(
    readonly g: GbnfBuilder,
    root: Record<string, unknown>,
    readonly prefix = '',
    /**
     * Whether an object that does not say `additionalProperties` admits other members, as JSON
     * Schema says (`json_object`); otherwise such objects are closed, as strict mode reads them (a
     * non-strict schema comes with its objects opened in it: held-schema.ts).
     */
    readonly openObjects = false,
    private readonly steps: StepBudget = g.steps,
  ) {
    this.refs = new RefTable(root);
  }

  /** A GBNF expression for `schema`; `path` (JSON Pointer) names where it is, for errors. */
  expression(schema: Schema, path: string): string {
    const outermost = this.depth === 0;
    this.steps.tick(path);
    if (++this.depth > MAX_SCHEMA_DEPTH) {
      throw new GrammarTooComplexError(
        path,
        `${TOO_COMPLEX} (it nests deeper than ${MAX_SCHEMA_DEPTH} levels).`,
      );
    }
    try {
      const out = this.node(schema, path);
      if (outermost) this.buildPending();
      return out;
    } catch (err) {
      if (err instanceof RefError) throw new UnsupportedSchemaError(err.path, err.message);
      throw err;
    } finally {
      this.depth--;
    }
  }

  /**
   * {@link expression} in slices: the definitions its `$ref`s name are built one at a time, with
   * `between()` (a yield to the event loop) before each, so a large schema of many definitions holds
   * the worker for one definition at a time.
   */
  async expressionPaced(schema: Schema, path: string, between: () => Promise<void>): Promise<string> {
    this.paced = true;
    try {
      const out = this.expression(schema, path);
      for (let next = this.pending.pop(); next; next = this.pending.pop()) {
        await between();
        this.buildOne(next);
      }
      return out;
    } finally {
      this.paced = false;
    }
  }

  private buildPending(): void {
    if (this.paced) return;
    for (let next = this.pending.pop(); next; next = this.pending.pop()) this.buildOne(next);
  }

  /** One pending definition, one level down (so the expressions inside it leave the queue alone). */
  private buildOne(next: { rule: string; schema: Schema; pointer: string }): void {
    this.depth++;
    try {
      this.g.fill(next.rule, this.node(next.schema, next.pointer));
    } catch (err) {
      if (err instanceof RefError) throw new UnsupportedSchemaError(err.path, err.message);
      throw err;
    } finally {
      this.depth--;
    }
  }

  private node(schema: Schema, path: string): string {
    if (
      schema === true ||
      (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0)
    ) {
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
      this.steps.tick(`${path}/enum`, schema.enum.length);
      return this.shape('enum', group(schema.enum.map((v) => gbnfLiteral(JSON.stringify(v)))));
    }
    const alternatives = (Array.isArray(schema.anyOf) ? schema.anyOf : schema.oneOf) as Schema[] | undefined;
    if (Array.isArray(alternatives)) {
      const key = Array.isArray(schema.anyOf) ? 'anyOf' : 'oneOf';
      const base = withoutKeys(schema, ['anyOf', 'oneOf']);
      const structural = Object.keys(base).some((k) => !ANNOTATIONS.has(k));
      return group(
        alternatives.map((s, i) => {
          const at = `${path}/${key}/${i}`;
          // A bare `$ref` keeps its rule (and its recursion); one beside constraints is merged with them.
          const part = structural ? this.refs.deref(s, at) : s;
          return this.expression(typeof part === 'object' && structural ? { ...base, ...part } : part, at);
        }),
      );
    }
    if (Array.isArray(schema.allOf)) return allOfRule(this, schema, path);
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
        return objectRule(this, schema, path);
      case 'array':
        return arrayRule(this, schema, path);
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
        throw new UnsupportedSchemaError(`${path}/type`, `Unknown JSON Schema type '${clip(type, 100)}'.`);
    }
  }

  private string(schema: Record<string, unknown>, path: string): string {
    if (typeof schema.pattern === 'string') {
      try {
        return this.shape('pattern', `"\\"" ${regexToGbnf(schema.pattern)} "\\""`);
      } catch (err) {
        if (err instanceof UnsupportedPatternError)
          throw new UnsupportedSchemaError(`${path}/pattern`, err.message);
        if (err instanceof GrammarTooComplexError)
          throw new GrammarTooComplexError(`${path}/pattern`, err.message);
        throw err;
      }
    }
    const format = typeof schema.format === 'string' ? schema.format : null;
    if (format && FORMATS.includes(format)) return `"\\"" ${this.prim(format)} "\\""`;
    const min = bound(schema.minLength, 0, `${path}/minLength`);
    const max = schema.maxLength === undefined ? null : bound(schema.maxLength, 0, `${path}/maxLength`);
    if (min === 0 && max === null) return this.prim('json-string');
    if (max !== null && max < min)
      throw new UnsupportedSchemaError(`${path}/maxLength`, 'maxLength is below minLength.');
    this.prim('json-char');
    const reps = max === null ? `{${min},}` : min === max ? `{${min}}` : `{${min},${max}}`;
    return this.shape('string', `"\\"" json-char${reps} "\\""`);
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
    const range = integerRange(lo, hi);
    if (range === null) {
      throw new UnsupportedSchemaError(
        `${path}/${lo !== null && lo > 0 ? 'minimum' : 'maximum'}`,
        'The integer range lies beyond ±999999999999999, the largest integers the local grammar engine writes.',
      );
    }
    return this.shape('int', range);
  }

  /** The rule of a `$ref`: one per definition, named before it is built so recursion refers to it. */
  private ref(ref: string, path: string): string {
    const end = this.refs.resolve(ref, path);
    const known = this.refRules.get(end.key);
    if (known) return known;
    const name = end.key.slice(end.key.lastIndexOf('/') + 1);
    const rule = this.g.reserve(`${this.prefix}ref-${name}`);
    this.refRules.set(end.key, rule);
    this.pending.push({ rule, schema: end.schema, pointer: end.pointer });
    return rule;
  }

  /**
   * `body` as a rule of its own, shared by every schema part with the same body: llama.cpp then
   * expands a repetition such as `json-char{0,200}` once, not once per property that uses it.
   */
  private shape(name: string, body: string): string {
    return this.g.add(`${this.prefix}${name}`, body);
  }

  deref(schema: Schema, path: string): Schema {
    return this.refs.deref(schema, path);
  }

  tick(path: string): void {
    this.steps.tick(path);
  }

  /** A shared primitive rule (and the ones it uses), by name. */
  prim(name: string): string {
    if (!this.g.has(name)) {
      this.g.shared(name, PRIMITIVES[name] as string);
      for (const dep of PRIMITIVE_DEPS[name] ?? []) this.prim(dep);
    }
    return name;
  }
}

function numberOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
