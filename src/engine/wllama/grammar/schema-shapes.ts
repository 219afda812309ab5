/**
 * The shapes of JSON a schema describes, as GBNF rules: objects (required members, then optional
 * ones as one chain of rules, as llama.cpp's json-schema-to-grammar writes them), arrays and tuples
 * (chains of rules too, so a long tuple nests no parentheses), and `allOf` merged into one object.
 */
import { clip } from '../../../common/api-error';
import { encodePointer } from '../../../common/json-pointer';
import { type GbnfBuilder, gbnfLiteral } from './gbnf';
import { GrammarTooComplexError, LLAMA_MAX_REPETITIONS, TOO_COMPLEX } from './grammar-budget';
import { undeclaredKeyRule } from './undeclared-key';

type Schema = Record<string, unknown> | boolean;

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

/** What the shape builders need of the converter that calls them. */
export interface SchemaContext {
  readonly g: GbnfBuilder;
  /** Prefix of every rule name (one per schema of a grammar). */
  readonly prefix: string;
  /** Whether a missing `additionalProperties` admits other members (JSON Schema) or none (strict). */
  readonly openObjects: boolean;
  expression(schema: Schema, path: string): string;
  /** A shared primitive rule, by name. */
  prim(name: string): string;
  /** `schema`, or where its `$ref` leads. */
  deref(schema: Schema, path: string): Schema;
  /** One step of the conversion's budget. */
  tick(path: string): void;
}

/**
 * `{ required members, then optional ones in order }`: each optional member is one link of a chain
 * of rules (`rest-i ::= ("," kv-i)? rest-i+1`), as llama.cpp's json-schema-to-grammar writes it, so
 * an object of n optional properties is O(n) rules, not n² alternatives.
 */
export function objectRule(ctx: SchemaContext, schema: Record<string, unknown>, path: string): string {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const name of required) {
    if (!Object.hasOwn(props, name)) {
      throw new UnsupportedSchemaError(
        `${path}/required`,
        `The required property '${clip(String(name), 100)}' has no schema in 'properties'.`,
      );
    }
  }
  const ws = ctx.prim('ws');
  const sep = ctx.prim('comma');
  const kv = (name: string): string => {
    const value = ctx.expression(props[name] as Schema, `${path}/properties${encodePointer([name])}`);
    return ctx.g.add(`${ctx.prefix}kv`, `${gbnfLiteral(JSON.stringify(name))} ${ws} ":" ${ws} ${value}`);
  };
  const names = Object.keys(props);
  const req = names.filter((n) => required.has(n)).map(kv);
  const opt = names.filter((n) => !required.has(n)).map(kv);
  // A silent `additionalProperties`: JSON Schema (`json_object`; a non-strict schema says `true` in
  // it, held-schema.ts) leaves the object open; strict mode closes it, unless it names no property
  // at all, which llama.cpp reads as any object.
  const open = ctx.openObjects || schema.properties === undefined;
  const extra = schema.additionalProperties ?? (open ? true : undefined);
  let tail = '';
  if (extra !== undefined && extra !== false) {
    const value =
      extra === true
        ? ctx.prim('json-value')
        : ctx.expression(extra as Schema, `${path}/additionalProperties`);
    const key = undeclaredKeyRule(ctx, names);
    tail = ctx.g.add(`${ctx.prefix}extra-kv`, `${key} ${ws} ":" ${ws} ${value}`);
  }
  // rests[i]: what may follow once the members before optional i are written.
  const rests: string[] = new Array(opt.length + 1);
  rests[opt.length] = tail ? ctx.g.add(`${ctx.prefix}extra-rest`, `(${sep} ${tail})*`) : '';
  for (let i = opt.length - 1; i >= 0; i--) {
    rests[i] = ctx.g.add(`${ctx.prefix}rest`, `(${sep} ${opt[i]})? ${rests[i + 1]}`.trim());
  }
  let body: string;
  if (req.length > 0) body = `${req.join(` ${sep} `)} ${rests[0]}`;
  else {
    // No required member: whichever member comes first has no comma before it.
    const firsts = opt.map((k, i) => `${k} ${rests[i + 1]}`.trim());
    if (tail) firsts.push(`${tail} ${rests[opt.length]}`);
    body = firsts.length === 0 ? '' : `${ctx.g.add(`${ctx.prefix}members`, firsts.join(' | '))}?`;
  }
  return ctx.g.add(`${ctx.prefix}obj`, `"{" ${ws} ${body} ${ws} "}"`.replace(/ {2,}/g, ' '));
}

/** A tuple (`prefixItems`) is a chain of rules too, so 3000 items nest no parentheses. */
export function arrayRule(ctx: SchemaContext, schema: Record<string, unknown>, path: string): string {
  const ws = ctx.prim('ws');
  const sep = ctx.prim('comma');
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
  const items = schema.items === undefined ? true : (schema.items as Schema);
  // A tuple's bounds count its items; an array's are a repetition, within llama.cpp's limit.
  const repeated = prefix.length === 0;
  const min = bound(schema.minItems, 0, `${path}/minItems`, repeated);
  const maxRaw =
    schema.maxItems === undefined ? null : bound(schema.maxItems, 0, `${path}/maxItems`, repeated);
  if (maxRaw !== null && maxRaw < min) {
    throw new UnsupportedSchemaError(`${path}/maxItems`, 'maxItems is below minItems.');
  }
  if (prefix.length > 0) {
    // A tuple: its prefix in order; what follows follows `items` (false: nothing).
    if (min > prefix.length)
      throw new UnsupportedSchemaError(`${path}/minItems`, 'minItems beyond prefixItems is not supported.');
    const fixed = prefix.map((s, i) => ctx.expression(s, `${path}/prefixItems/${i}`));
    let seq = '';
    if (items !== false) {
      const item = ctx.g.add(`${ctx.prefix}item`, ctx.expression(items, `${path}/items`));
      seq = `${ctx.g.add(`${ctx.prefix}item-more`, `${sep} ${item}`)}*`;
    }
    // Each item after the first comes with its comma; items past minItems may stop the list.
    for (let i = fixed.length - 1; i >= 1; i--) {
      const link = ctx.g.add(`${ctx.prefix}tuple`, `${sep} ${fixed[i]} ${seq}`.trim());
      seq = i < min ? link : `${link}?`;
    }
    const whole = `${fixed[0]} ${seq}`.trim();
    const body = min === 0 ? `${ctx.g.add(`${ctx.prefix}tuple`, whole)}?` : whole;
    return ctx.g.add(`${ctx.prefix}arr`, `"[" ${ws} ${body} ${ws} "]"`);
  }
  const item = ctx.g.add(`${ctx.prefix}item`, ctx.expression(items, `${path}/items`));
  // The repeated part is one rule, so llama.cpp counts it as one rule times the repetition.
  const more = ctx.g.add(`${ctx.prefix}item-more`, `${sep} ${item}`);
  let body: string;
  if (maxRaw === 0) body = '';
  else if (min === 0) {
    // Quantified groups count every rule inside them against llama.cpp's threshold: a rule counts one.
    const some = maxRaw === null ? `${item} ${more}*` : `${item} ${more}{0,${maxRaw - 1}}`;
    body = `${ctx.g.add(`${ctx.prefix}items`, some)}?`;
  } else body = `${item} ${more}${maxRaw === null ? `{${min - 1},}` : `{${min - 1},${maxRaw - 1}}`}`;
  return ctx.g.add(`${ctx.prefix}arr`, `"[" ${ws} ${body} ${ws} "]"`.replace(/ {2,}/g, ' '));
}

/**
 * `allOf`: a single part is that part (its `$ref` kept, with the annotations beside it dropped, as
 * pydantic writes a described field); several are merged as objects, each `$ref` resolved first.
 */
export function allOfRule(ctx: SchemaContext, schema: Record<string, unknown>, path: string): string {
  const parts = schema.allOf as Schema[];
  const base = withoutKeys(schema, ['allOf']);
  const structural = Object.keys(base).some((k) => !ANNOTATIONS.has(k));
  if (parts.length === 1 && !structural) return ctx.expression(parts[0] as Schema, `${path}/allOf/0`);
  const merged: Record<string, unknown> = { type: 'object', properties: {}, required: [] };
  const queue: Array<[Schema, string]> = [
    [base, path],
    ...parts.map((p, i): [Schema, string] => [p, `${path}/allOf/${i}`]),
  ];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [raw, at] = next;
    ctx.tick(at);
    const part = ctx.deref(raw, at);
    if (typeof part !== 'object') throw new UnsupportedSchemaError(at, 'allOf needs object schemas.');
    if (part.type !== undefined && part.type !== 'object') {
      throw new UnsupportedSchemaError(at, 'Only allOf of object schemas is supported.');
    }
    if (Array.isArray(part.allOf)) {
      queue.push(
        [withoutKeys(part, ['allOf']), at],
        ...part.allOf.map((p, i): [Schema, string] => [p as Schema, `${at}/allOf/${i}`]),
      );
      continue;
    }
    Object.assign(merged.properties as object, part.properties ?? {});
    (merged.required as string[]).push(...((part.required as string[] | undefined) ?? []));
    if (part.additionalProperties !== undefined) merged.additionalProperties = part.additionalProperties;
  }
  return objectRule(ctx, merged, path);
}

/** Keywords that annotate a schema without constraining it. */
export const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  '$defs',
  'definitions',
]);

/** A `minItems`/`maxItems`/`minLength`/`maxLength`, which llama.cpp spells out as a repetition. */
export function bound(v: unknown, fallback: number, path: string, repeated = true): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new UnsupportedSchemaError(path, 'Must be a non-negative integer.');
  }
  if (repeated && v > LLAMA_MAX_REPETITIONS) {
    throw new GrammarTooComplexError(
      path,
      `${TOO_COMPLEX}: ${clip(String(v), 30)} is above ${LLAMA_MAX_REPETITIONS}, the most repetitions llama.cpp's grammar accepts.`,
    );
  }
  return v;
}

/** `schema` without `keys`. */
export function withoutKeys(schema: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => !keys.includes(k)));
}
