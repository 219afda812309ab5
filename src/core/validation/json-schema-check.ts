import { clip } from '../../common/api-error';
import { resolveFragment } from '../../common/json-pointer';
import { pace } from '../../common/pace';
import { MAX_CHECK_DEPTH, MAX_CHECK_STEPS } from './schema-budgets';

/**
 * A compact JSON Schema check for the subset OpenAI's strict structured outputs allow (types, enum,
 * const, properties/required/additionalProperties, items, anyOf/oneOf/allOf, local $ref, and the
 * string, number and array bounds). It runs in the tab at every strict response, so it stays small
 * instead of shipping a full validator; unknown keywords (format, say) are ignored, as validators do.
 *
 * Each (subschema, value) pair is judged once and remembered: `$ref`s under `anyOf` reach one
 * subschema by many paths, and without the memory 30 nested levels took 2^30 checks (half an hour).
 * So the work is at most (subschemas × values), and {@link MAX_CHECK_STEPS} bounds it all the same;
 * past it, or past {@link MAX_CHECK_DEPTH} levels, {@link SchemaCheckLimitError} is thrown.
 *
 * Patterns never run on the backtracking `RegExp` (`^(a+)+$` against 30 a's and a '!' hung the
 * worker for minutes): they run on the linear-time engine that `request-schema.ts` installs with
 * {@link usePatternTest} when it first checks a request's schema, which is always before any output
 * under that schema is checked.
 *
 * The check runs in slices: a 20,000-object output took ~110 ms in one synchronous step, and the
 * engine worker answers every tab. It pauses every {@link SLICE_STEPS} steps and {@link pace} yields
 * to the loop once the turn is long; slicing changes neither the result nor the errors.
 *
 * @example
 * await checkJsonSchemaPaced({ type: 'object', required: ['n'], properties: { n: { type: 'number' } } }, { n: 'x' })
 * // → "$.n: expected number, got string"
 */
export async function checkJsonSchemaPaced(schema: unknown, value: unknown): Promise<string | null> {
  const steps = new CheckRun(schema).check(schema, value, 0);
  let next = steps.next();
  while (!next.done) {
    await pace();
    next = steps.next();
  }
  return next.value && `$${next.value.path}: ${next.value.why}`;
}

/** How many steps the check takes between two chances to yield (a few hundred microseconds). */
const SLICE_STEPS = 2048;

/**
 * The check gave up: the output nests deeper than {@link MAX_CHECK_DEPTH}, or judging it would take
 * more than {@link MAX_CHECK_STEPS} steps. The message says which.
 */
export class SchemaCheckLimitError extends Error {
  override name = 'SchemaCheckLimitError';
}

type Schema = Record<string, unknown>;
/** What is wrong, relative to the value it was judged at: the path below it (`.a[0]`) and why. */
type Problem = { path: string; why: string };
/** Marks a pair being judged: met again, the schema refers to itself for the same value. */
const PENDING = 0;
/** Characters of text one step pays for (a string's length, a pattern run, a value's JSON). */
const CHARS_PER_STEP = 16;

/** The check's work as a generator: it yields (nothing) every {@link SLICE_STEPS} steps. */
type Steps = Generator<void, Problem | null, void>;

/** One check of one value: the memory of judged pairs and the step count live as long as it does. */
class CheckRun {
  private steps = 0;
  private sliceEnd = SLICE_STEPS;
  private readonly judged = new Map<Schema, Map<unknown, Problem | null | typeof PENDING>>();
  private readonly refs = new Map<string, unknown>();
  private readonly texts = new Map<object, string>();
  constructor(private readonly root: unknown) {}

  *check(schema: unknown, value: unknown, depth: number): Steps {
    if (schema === true || schema === undefined) return null;
    if (schema === false) return { path: '', why: 'no value is allowed here' };
    if (typeof schema !== 'object' || schema === null) return null;
    const s = schema as Schema;
    let pairs = this.judged.get(s);
    if (!pairs) {
      pairs = new Map();
      this.judged.set(s, pairs);
    }
    const known = pairs.get(value);
    // A schema that reaches itself for the same value (refused at request time) adds nothing.
    if (known === PENDING) return null;
    if (known !== undefined) return known;
    if (depth > MAX_CHECK_DEPTH)
      throw new SchemaCheckLimitError(`the output nests deeper than ${MAX_CHECK_DEPTH} levels of schemas`);
    this.spend(1);
    if (this.steps >= this.sliceEnd) {
      this.sliceEnd = this.steps + SLICE_STEPS;
      yield;
    }
    pairs.set(value, PENDING);
    const problem = yield* this.judge(s, value, depth);
    pairs.set(value, problem);
    return problem;
  }

  private *judge(s: Schema, value: unknown, depth: number): Steps {
    if (typeof s.$ref === 'string') {
      const problem = yield* this.check(this.resolve(s.$ref), value, depth + 1);
      if (problem) return problem;
    }
    if (Object.hasOwn(s, 'const') && !this.equal(s.const, value))
      return here(`expected ${clip(this.text(s.const))}`);
    if (Array.isArray(s.enum)) {
      this.spend(s.enum.length);
      if (!s.enum.some((e) => this.equal(e, value)))
        return here(`${clip(this.text(value))} is not one of ${clip(this.text(s.enum))}`);
    }
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
      if (!types.some((t) => isType(t, value)))
        return here(`expected ${types.join(' or ')}, got ${typeOf(value)}`);
    }
    return (
      (yield* this.combinators(s, value, depth)) ??
      (typeof value === 'string' ? this.stringBounds(s, value) : null) ??
      (typeof value === 'number' ? numberBounds(s, value) : null) ??
      (Array.isArray(value) ? yield* this.arrayRules(s, value, depth) : null) ??
      (isObject(value) ? yield* this.objectRules(s, value, depth) : null)
    );
  }

  private *combinators(s: Schema, value: unknown, depth: number): Steps {
    for (const sub of asArray(s.allOf)) {
      const problem = yield* this.check(sub, value, depth + 1);
      if (problem) return problem;
    }
    const anyOf = asArray(s.anyOf ?? s.oneOf);
    if (anyOf.length > 0 && !(yield* this.matchesOne(anyOf, value, depth + 1)))
      return here('matches none of the allowed schemas');
    if (s.not !== undefined && (yield* this.check(s.not, value, depth + 1)) === null)
      return here('matches a schema it must not match');
    return null;
  }

  /** Whether `value` matches one of `options` (the first that does ends the search, as `some` did). */
  private *matchesOne(options: unknown[], value: unknown, depth: number): Generator<void, boolean, void> {
    for (const sub of options) if ((yield* this.check(sub, value, depth)) === null) return true;
    return false;
  }

  private stringBounds(s: Schema, value: string): Problem | null {
    const min = typeof s.minLength === 'number' ? s.minLength : null;
    const max = typeof s.maxLength === 'number' ? s.maxLength : null;
    if (min !== null || max !== null) {
      this.spend(value.length / CHARS_PER_STEP);
      const length = codePoints(value);
      if (min !== null && length < min) return here(`shorter than ${min}`);
      if (max !== null && length > max) return here(`longer than ${max}`);
    }
    if (typeof s.pattern === 'string') {
      this.spend((value.length + s.pattern.length) / CHARS_PER_STEP);
      if (patternTest?.(s.pattern, value) === false) return here(`does not match ${clip(s.pattern)}`);
    }
    return null;
  }

  private *arrayRules(s: Schema, value: unknown[], depth: number): Steps {
    if (typeof s.minItems === 'number' && value.length < s.minItems)
      return here(`fewer than ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems)
      return here(`more than ${s.maxItems} items`);
    this.spend(value.length);
    const prefix = asArray(s.prefixItems);
    for (let i = 0; i < value.length; i++) {
      const problem = yield* this.check(i < prefix.length ? prefix[i] : s.items, value[i], depth + 1);
      if (problem) return { path: `[${i}]${problem.path}`, why: problem.why };
    }
    return null;
  }

  private *objectRules(s: Schema, value: Record<string, unknown>, depth: number): Steps {
    const props = isObject(s.properties) ? s.properties : {};
    const required = asArray(s.required) as string[];
    const entries = Object.entries(value);
    this.spend(required.length + entries.length);
    // Own keys only: with `in`, `{}` had every required `toString` or `__proto__` of its prototype.
    for (const key of required)
      if (!Object.hasOwn(value, key)) return here(`missing required property '${clip(String(key), 64)}'`);
    for (const [key, v] of entries) {
      const known = Object.hasOwn(props, key);
      if (!known && s.additionalProperties === false) return here(`unexpected property '${clip(key, 64)}'`);
      const problem = yield* this.check(known ? props[key] : s.additionalProperties, v, depth + 1);
      if (problem) return { path: `.${clip(key, 64)}${problem.path}`, why: problem.why };
    }
    return null;
  }

  /** JSON equality, as `const` and `enum` mean it; a value's JSON is written once per check. */
  private equal(a: unknown, b: unknown): boolean {
    if (a === b) return true;
    if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
    return this.text(a) === this.text(b);
  }

  /** A value's JSON, written once per check (the schema's `enum` and `const` too), each char paid for. */
  private text(v: unknown): string {
    // A long string's message needs its start only: a megabyte is not written out per schema it fails.
    if (typeof v === 'string' && v.length > 256) return `${JSON.stringify(v.slice(0, 256))}…`;
    if (typeof v !== 'object' || v === null) return JSON.stringify(v) ?? '';
    let text = this.texts.get(v);
    if (text === undefined) {
      text = JSON.stringify(v);
      this.spend(text.length / CHARS_PER_STEP);
      this.texts.set(v, text);
    }
    return text;
  }

  private resolve(ref: string): unknown {
    // Strict mode allows local pointers only: a remote ref, or one that names nothing, constrains nothing.
    if (!this.refs.has(ref)) this.refs.set(ref, resolveFragment(this.root, ref) ?? true);
    return this.refs.get(ref);
  }

  private spend(steps: number): void {
    this.steps += steps;
    if (this.steps > MAX_CHECK_STEPS)
      throw new SchemaCheckLimitError(
        `checking it takes more than ${MAX_CHECK_STEPS.toLocaleString('en-US')} steps (the schema's $refs, anyOf and allOf multiply the work)`,
      );
  }
}

function here(why: string): Problem {
  return { path: '', why };
}

function numberBounds(s: Schema, value: number): Problem | null {
  if (typeof s.minimum === 'number' && value < s.minimum) return here(`below ${s.minimum}`);
  if (typeof s.maximum === 'number' && value > s.maximum) return here(`above ${s.maximum}`);
  if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
    return here(`not above ${s.exclusiveMinimum}`);
  if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
    return here(`not below ${s.exclusiveMaximum}`);
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && !Number.isInteger(value / s.multipleOf))
    return here(`not a multiple of ${s.multipleOf}`);
  return null;
}

/** The length of `text` in code points, as JSON Schema counts it (a surrogate pair is one). */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * Whether a JSON value is of a JSON Schema `type` (`integer` is a whole number; parsed JSON never
 * holds a non-finite number).
 *
 * @example
 * isType('integer', 3); // true
 */
export function isType(type: string, v: unknown): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'null':
      return v === null;
    default:
      return typeof v === type;
  }
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Whether `text` matches `pattern`, in linear time; null when the pattern cannot run. */
export type PatternTest = (pattern: string, text: string) => boolean | null;

let patternTest: PatternTest | null = null;

/**
 * Installs the engine that `pattern` runs on. Until one is installed a pattern constrains nothing:
 * intab never falls back to `RegExp`, whose backtracking a hostile pattern turns into a hang.
 *
 * @example
 * usePatternTest((pattern, text) => RE2JS.compile(pattern).test(text));
 */
export function usePatternTest(test: PatternTest): void {
  patternTest = test;
}
