/**
 * Fresh variants of a request body, for speed checks measured cold (issue 27, item 6): a cache of
 * compiled patterns or schemas, filled by a warm-up, hid what a new schema costs (62 ms cold against
 * 3 ms warm). Each variant is the same request with every schema new to the server: each `pattern`
 * gets a suffix that matches nothing more (`(?:salt){0}`, the empty string), and each schema root
 * under `schema`, `parameters` or `output_schema` a `description` naming the salt (when it has none).
 */

const SCHEMA_KEYS = new Set(['schema', 'parameters', 'output_schema']);

/**
 * `body` with fresh schemas and patterns (see the module doc). A string body is parsed, freshened
 * and written back when it is JSON that holds a schema or pattern; otherwise it comes back as it is.
 *
 * @example
 * let n = 0;
 * const cold = await fastestBlock(3, () => send(rig, freshen(body, `cold${n++}`)));
 */
export function freshen<T>(body: T, salt: string): T {
  if (typeof body === 'string') {
    if (!/"(pattern|schema|parameters|output_schema)"/.test(body)) return body;
    try {
      return JSON.stringify(freshen(JSON.parse(body), salt)) as T;
    } catch {
      return body;
    }
  }
  return walk(body, salt, false) as T;
}

/** `salt` as a regex atom that matches the empty string only: `(?:salt){0}` (letters and digits only). */
function emptyMatch(salt: string): string {
  return `(?:${salt.replace(/[^A-Za-z0-9]/g, '')}){0}`;
}

function walk(value: unknown, salt: string, schemaRoot: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, salt, false));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).map(([k, v]): [string, unknown] =>
    k === 'pattern' && typeof v === 'string'
      ? [k, `${v}${emptyMatch(salt)}`]
      : [k, walk(v, salt, SCHEMA_KEYS.has(k))],
  );
  if (schemaRoot && !Object.hasOwn(value, 'description')) entries.push(['description', `fresh ${salt}`]);
  // Object.fromEntries defines the keys, as JSON.parse does: `__proto__` stays a plain key.
  return Object.fromEntries(entries);
}
