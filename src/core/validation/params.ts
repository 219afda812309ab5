import * as z from 'zod/mini';
import { type ApiError, clip, invalidRequest } from '../../common/api-error';
import { MAX_ID_CHARS } from '../http/ids';

type Path = ReadonlyArray<PropertyKey>;

/**
 * Parses `value` with a zod schema and turns the first problem into OpenAI's error: the same
 * messages, codes and `param` paths (`input[2].content[0].type`) that OpenAI's API answers with.
 *
 * @example
 * const body = parseOrThrow(createResponseSchema, json);
 * const item = parseOrThrow(inputItemSchema, raw, ['input', 2]);
 */
export function parseOrThrow<T extends z.ZodMiniType>(
  schema: T,
  value: unknown,
  prefix: Path = [],
): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // OpenAI names unknown parameters before anything else; zod lists them last.
  const issues = [...result.error.issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  const issue = issues[0];
  if (!issue) throw invalidRequest(null, 'Invalid request.');
  throw issueToError(issue, value, prefix);
}

/** `['input', 2, 'content', 0, 'type']` → `input[2].content[0].type` */
export function formatParam(path: Path): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${clip(String(key))}` : clip(String(key));
  }
  return out;
}

function valueAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a decimal';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'boolean') return 'a boolean';
  return `a ${typeof v}`;
}

const EXPECTED: Record<string, string> = {
  number: 'a decimal',
  int: 'an integer',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

function issueToError(issue: z.core.$ZodIssue, root: unknown, prefix: Path): ApiError {
  const path = [...prefix, ...issue.path];
  const param = formatParam(path);
  const value = valueAt(root, issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = formatParam([...path, issue.keys[0] ?? '']);
      return invalidRequest(key, `Unknown parameter: '${key}'.`, 'unknown_parameter');
    }
    case 'invalid_type':
      if (value === undefined) {
        return invalidRequest(param, `Missing required parameter: '${param}'.`, 'missing_required_parameter');
      }
      return invalidRequest(
        param,
        `Invalid type for '${param}': expected ${EXPECTED[issue.expected] ?? issue.expected}, but got ${describeType(value)} instead.`,
        'invalid_type',
      );
    case 'invalid_value':
      // A literal field left out (`prompt_cache_breakpoint: {}`) is missing, not wrong.
      if (value === undefined) {
        return invalidRequest(param, `Missing required parameter: '${param}'.`, 'missing_required_parameter');
      }
      return invalidRequest(
        param,
        `Invalid value: ${clip(JSON.stringify(value) ?? String(value))}. Supported values are: ${issue.values.map((v) => `'${String(v)}'`).join(', ')}.`,
        'invalid_value',
      );
    case 'invalid_union': {
      if ('discriminator' in issue && issue.discriminator) {
        const options = (issue as { options?: unknown[] }).options ?? [];
        if (value === undefined) {
          return invalidRequest(
            param,
            `Missing required parameter: '${param}'.`,
            'missing_required_parameter',
          );
        }
        return invalidRequest(
          param,
          `Invalid value: ${clip(JSON.stringify(value) ?? String(value))}. Supported values are: ${options.map((v) => `'${String(v)}'`).join(', ')}.`,
          'invalid_value',
        );
      }
      // A plain union (`string | parts[]`) left out is missing, like any other required field.
      if (value === undefined) {
        return invalidRequest(param, `Missing required parameter: '${param}'.`, 'missing_required_parameter');
      }
      // Otherwise report the branch that got furthest into the value.
      const branches = (issue as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
      const deepest = branches
        .map((b) => b[0])
        .filter((b): b is z.core.$ZodIssue => Boolean(b))
        .sort((a, b) => b.path.length - a.path.length)[0];
      if (deepest && deepest.path.length > 0) {
        return issueToError({ ...deepest, path: [...issue.path, ...deepest.path] }, root, prefix);
      }
      return invalidRequest(param, `Invalid value for '${param}'.`, 'invalid_value');
    }
    case 'too_big':
    case 'too_small':
      return rangeError(issue, param, value);
    case 'invalid_key': {
      // A record key broke its schema (metadata keys are at most 64 characters): name the object.
      const key = String(issue.path.at(-1) ?? '');
      const objectParam = formatParam(path.slice(0, -1));
      return invalidRequest(
        objectParam,
        `Invalid '${objectParam}': key '${key.slice(0, 80)}' is too long. Expected keys with maximum length 64, but got a key with length ${key.length} instead.`,
        'string_above_max_length',
      );
    }
    case 'invalid_format':
      return invalidRequest(
        param,
        issue.message.startsWith('id_prefix:')
          ? customMessage(issue.message, param, value)
          : `Invalid '${param}': string does not match the expected format.`,
        'invalid_value',
      );
    default:
      return invalidRequest(param, customMessage(issue.message, param, value), 'invalid_value');
  }
}

function rangeError(
  issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall,
  param: string,
  value: unknown,
): ApiError {
  const big = issue.code === 'too_big';
  const limit = big ? (issue as z.core.$ZodIssueTooBig).maximum : (issue as z.core.$ZodIssueTooSmall).minimum;
  const op = big ? '<=' : '>=';
  if (issue.origin === 'string') {
    const len = typeof value === 'string' ? value.length : 0;
    return invalidRequest(
      param,
      `Invalid '${param}': string too ${big ? 'long' : 'short'}. Expected a string with ${big ? 'maximum' : 'minimum'} length ${limit}, but got a string with length ${len} instead.`,
      big ? 'string_above_max_length' : 'string_below_min_length',
    );
  }
  if (issue.origin === 'array') {
    const len = Array.isArray(value) ? value.length : 0;
    return invalidRequest(
      param,
      `Invalid '${param}': array too ${big ? 'long' : 'short'}. Expected an array with ${big ? 'maximum' : 'minimum'} length ${limit}, but got an array with length ${len} instead.`,
      big ? 'array_above_max_length' : 'array_below_min_length',
    );
  }
  const kind = Number.isInteger(value) ? 'integer' : 'decimal';
  return invalidRequest(
    param,
    `Invalid '${param}': ${kind} ${big ? 'above maximum' : 'below minimum'} value. Expected a value ${op} ${String(limit)}, but got ${String(value)} instead.`,
    `${kind}_${big ? 'above_max' : 'below_min'}_value`,
  );
}

/** Refinements carry a short code as their message; this turns it into OpenAI's wording. */
function customMessage(code: string, param: string, value: unknown): string {
  switch (code) {
    case 'metadata_too_many_pairs':
      return `Invalid '${param}': too many properties. Expected an object with at most 16 properties, but got an object with ${Object.keys(value ?? {}).length} properties instead.`;
    case 'tool_name_pattern':
    case 'format_name_pattern':
      return `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`;
    default:
      if (code.startsWith('id_prefix:')) {
        const prefix = code.slice(10);
        const expected = String(value).startsWith(prefix)
          ? // It has the prefix: saying only "begins with" would name nothing it lacks.
            `Expected an ID of '${prefix}_' followed by letters, digits, '_' or '-', at most ${MAX_ID_CHARS} characters`
          : `Expected an ID that begins with '${prefix}'`;
        return `Invalid '${param}': '${clip(String(value))}'. ${expected}.`;
      }
      return `Invalid value for '${param}': ${code}`;
  }
}

/**
 * `record`, validated as it is, but parsed to an object with every own key of the input. zod builds
 * a record by assignment, so a `__proto__` key (an own property after `JSON.parse`) was dropped, or
 * even set the result's prototype: `{"__proto__": "x"}` came back as `{}`. zod also skips that key
 * when it validates, so its value is checked under a stand-in name of the same length (issue 27:
 * `{"__proto__": {…}}` slipped through a record of strings).
 *
 * @example
 * keepOwnKeys(z.record(z.string(), z.string())).parse(JSON.parse('{"__proto__":"x"}')) // → { ['__proto__']: 'x' }
 */
export function keepOwnKeys<T extends z.ZodMiniType<Record<string, unknown>>>(record: T) {
  return z.pipe(
    z.unknown(),
    z.transform((value, ctx): z.output<T> => {
      const { renamed, standIn } = renameProtoKey(value);
      const result = record.safeParse(renamed);
      if (!result.success) {
        // The record's own issues, paths relative to here, so that errors read exactly as before.
        for (const issue of result.error.issues) {
          const path = issue.path.map((p) => (p === standIn ? PROTO : p));
          ctx.issues.push({ ...issue, path, input: value } as (typeof ctx.issues)[number]);
        }
        return z.NEVER;
      }
      // Object.fromEntries defines properties (no setter runs), so `__proto__` stays a plain key.
      return Object.fromEntries(Object.entries(value as object)) as z.output<T>;
    }),
  );
}

const PROTO = '__proto__';

/**
 * `value` with its own `__proto__` key renamed to a stand-in of the same length (so a key-length
 * rule judges it alike) that no other key of `value` uses; `value` as it is when it has none.
 */
function renameProtoKey(value: unknown): { renamed: unknown; standIn: string | null } {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, PROTO))
    return { renamed: value, standIn: null };
  let standIn = '\u0000\u0000proto\u0000\u0000';
  for (let n = 0; Object.hasOwn(value, standIn); n++)
    standIn = `\u0000\u0000proto\u0000${String.fromCharCode(n)}`;
  const entries = Object.entries(value).map(([k, v]) => [k === PROTO ? standIn : k, v]);
  return { renamed: Object.fromEntries(entries), standIn };
}

/** A JSON object of any values (a schema, tool parameters), with every key it was sent with. */
export const jsonObjectSchema = keepOwnKeys(z.record(z.string(), z.unknown()));

/** Metadata on responses, conversations and chat completions: up to 16 pairs, keys ≤ 64 and values ≤ 512 characters. */
export const metadataSchema = keepOwnKeys(
  z
    .record(z.string().check(z.maxLength(64)), z.string().check(z.maxLength(512)))
    .check(z.refine((m) => Object.keys(m).length <= 16, { message: 'metadata_too_many_pairs' })),
);
