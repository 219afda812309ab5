/**
 * The JSON types a JSON Schema allows, for formats that write values bare and type them by the
 * schema (Qwen3.5's XML parameters).
 */
import { isRecord } from './json-text';

/**
 * The JSON types a schema allows (`type`, and the types of `anyOf`/`oneOf`/`enum` members); empty
 * when it says nothing of types.
 *
 * @example
 * schemaTypes({ anyOf: [{ type: 'integer' }, { type: 'null' }] }); // Set {'integer', 'null'}
 */
export function schemaTypes(schema: unknown, out = new Set<string>()): Set<string> {
  if (!isRecord(schema)) return out;
  const t = schema.type;
  for (const one of Array.isArray(t) ? t : t === undefined ? [] : [t]) out.add(String(one));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) for (const s of list) schemaTypes(s, out);
  }
  if (Array.isArray(schema.enum)) for (const v of schema.enum) out.add(jsonType(v));
  if ('const' in schema) out.add(jsonType(schema.const));
  return out;
}

/**
 * The JSON type of a value, integers told apart from other numbers.
 *
 * @example
 * jsonType(3); // 'integer'
 */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
