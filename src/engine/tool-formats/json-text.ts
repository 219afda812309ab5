/**
 * JSON the way chat templates write it, and where a JSON value ends inside streamed text (calls are
 * followed by prose or by the next call, never by a delimiter we can trust): common's scanner.
 */
import { JsonValueScanner } from '../../common/json-scan';

/**
 * `JSON.stringify` with Python `json.dumps` separators (`", "`, `": "`), which is what HF chat
 * templates' `tojson` renders and therefore what models were trained to read and write.
 *
 * @example
 * pyJson({ name: 'f', arguments: { a: 1 } }); // '{"name": "f", "arguments": {"a": 1}}'
 */
export function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Python `json.dumps(value, indent=n)`: one item per line, `", "` becomes `","` at line ends.
 *
 * @example
 * pyJsonIndent({ a: [1] }, 4); // '{\n    "a": [\n        1\n    ]\n}'
 */
export function pyJsonIndent(value: unknown, indent: number, depth = 0): string {
  const pad = (d: number) => ' '.repeat(indent * d);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v) => pad(depth + 1) + pyJsonIndent(v, indent, depth + 1));
    return `[\n${items.join(',\n')}\n${pad(depth)}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const items = entries.map(
      ([k, v]) => `${pad(depth + 1)}${JSON.stringify(k)}: ${pyJsonIndent(v, indent, depth + 1)}`,
    );
    return `{\n${items.join(',\n')}\n${pad(depth)}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Where the JSON value starting at `start` (after whitespace) ends: the index just past it, or -1
 * while it is still incomplete or is no object or array. Only brackets and strings are tracked;
 * validity is JSON.parse's job.
 *
 * @example
 * jsonEnd('{"a": "}"} and more', 0); // 10
 * jsonEnd('{"a": [1, ', 0); // -1
 */
export function jsonEnd(text: string, start: number): number {
  return new JsonValueScanner('container').scan(text, start);
}

/**
 * `JSON.parse` that answers undefined instead of throwing.
 *
 * @example
 * tryJson('{"a":1}'); // {a: 1}
 * tryJson('{'); // undefined
 */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Arguments as the wire wants them: a JSON string of an object. */
export function argumentsText(args: unknown): string | null {
  const value = typeof args === 'string' ? tryJson(args) : args;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return JSON.stringify(value);
}

/** `arguments` of a call in history: the object, or the raw string when it is not JSON. */
export function parsedArguments(args: string): unknown {
  const value = tryJson(args);
  return value === undefined ? args : value;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
