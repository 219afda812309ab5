/**
 * A compact JSON Schema check for the subset OpenAI's strict structured outputs allow (types, enum,
 * const, properties/required/additionalProperties, items, anyOf/oneOf/allOf, local $ref, and the
 * string, number and array bounds). It runs in the tab at every strict response, so it stays small
 * instead of shipping a full validator; unknown keywords (format, say) are ignored, as validators do.
 * Patterns never run on the backtracking `RegExp` (`^(a+)+$` against 30 a's and a '!' hung the
 * worker for minutes): they run on the linear-time engine that `request-schema.ts` installs with
 * {@link usePatternTest} when it first checks a request's schema, which is always before any output
 * under that schema is checked.
 *
 * @example
 * checkJsonSchema({ type: 'object', required: ['n'], properties: { n: { type: 'number' } } }, { n: 'x' })
 * // → "$.n: expected number, got string"
 */
export function checkJsonSchema(schema: unknown, value: unknown): string | null {
  return check(schema, value, '$', schema, 0);
}

type Schema = Record<string, unknown>;

function check(schema: unknown, value: unknown, at: string, root: unknown, depth: number): string | null {
  if (schema === true || schema === undefined) return null;
  if (schema === false) return `${at}: no value is allowed here`;
  if (typeof schema !== 'object' || schema === null || depth > 64) return null;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    const problem = check(resolveRef(root, s.$ref), value, at, root, depth + 1);
    if (problem) return problem;
  }
  if (Object.hasOwn(s, 'const') && !equal(s.const, value))
    return `${at}: expected ${JSON.stringify(s.const)}`;
  if (Array.isArray(s.enum) && !s.enum.some((e) => equal(e, value)))
    return `${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => isType(t, value)))
      return `${at}: expected ${types.join(' or ')}, got ${typeOf(value)}`;
  }
  return (
    combinators(s, value, at, root, depth) ??
    (typeof value === 'string' ? stringBounds(s, value, at) : null) ??
    (typeof value === 'number' ? numberBounds(s, value, at) : null) ??
    (Array.isArray(value) ? arrayRules(s, value, at, root, depth) : null) ??
    (isObject(value) ? objectRules(s, value, at, root, depth) : null)
  );
}

function combinators(s: Schema, value: unknown, at: string, root: unknown, depth: number): string | null {
  for (const sub of asArray(s.allOf)) {
    const problem = check(sub, value, at, root, depth + 1);
    if (problem) return problem;
  }
  const anyOf = asArray(s.anyOf ?? s.oneOf);
  if (anyOf.length > 0 && !anyOf.some((sub) => check(sub, value, at, root, depth + 1) === null))
    return `${at}: matches none of the allowed schemas`;
  if (s.not !== undefined && check(s.not, value, at, root, depth + 1) === null)
    return `${at}: matches a schema it must not match`;
  return null;
}

function stringBounds(s: Schema, value: string, at: string): string | null {
  const length = [...value].length;
  if (typeof s.minLength === 'number' && length < s.minLength) return `${at}: shorter than ${s.minLength}`;
  if (typeof s.maxLength === 'number' && length > s.maxLength) return `${at}: longer than ${s.maxLength}`;
  if (typeof s.pattern === 'string' && patternTest?.(s.pattern, value) === false)
    return `${at}: does not match ${s.pattern}`;
  return null;
}

function numberBounds(s: Schema, value: number, at: string): string | null {
  if (typeof s.minimum === 'number' && value < s.minimum) return `${at}: below ${s.minimum}`;
  if (typeof s.maximum === 'number' && value > s.maximum) return `${at}: above ${s.maximum}`;
  if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
    return `${at}: not above ${s.exclusiveMinimum}`;
  if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
    return `${at}: not below ${s.exclusiveMaximum}`;
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && !Number.isInteger(value / s.multipleOf))
    return `${at}: not a multiple of ${s.multipleOf}`;
  return null;
}

function arrayRules(s: Schema, value: unknown[], at: string, root: unknown, depth: number): string | null {
  if (typeof s.minItems === 'number' && value.length < s.minItems)
    return `${at}: fewer than ${s.minItems} items`;
  if (typeof s.maxItems === 'number' && value.length > s.maxItems)
    return `${at}: more than ${s.maxItems} items`;
  const prefix = asArray(s.prefixItems);
  for (let i = 0; i < value.length; i++) {
    const problem = check(i < prefix.length ? prefix[i] : s.items, value[i], `${at}[${i}]`, root, depth + 1);
    if (problem) return problem;
  }
  return null;
}

function objectRules(
  s: Schema,
  value: Record<string, unknown>,
  at: string,
  root: unknown,
  depth: number,
): string | null {
  const props = isObject(s.properties) ? s.properties : {};
  // Own keys only: with `in`, `{}` had every required `toString` or `__proto__` of its prototype.
  for (const key of asArray(s.required) as string[])
    if (!Object.hasOwn(value, key)) return `${at}: missing required property '${key}'`;
  for (const [key, v] of Object.entries(value)) {
    const where = `${at}.${key}`;
    const problem = Object.hasOwn(props, key)
      ? check(props[key], v, where, root, depth + 1)
      : s.additionalProperties === false
        ? `${at}: unexpected property '${key}'`
        : check(s.additionalProperties, v, where, root, depth + 1);
    if (problem) return problem;
  }
  return null;
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

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Local JSON pointers only (`#`, `#/$defs/X`); strict mode allows no remote refs. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return true;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  }
  return node ?? true;
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
