/**
 * A deterministic instance of a JSON Schema, as the `scripted` model's tool arguments and structured
 * output (DESIGN.md): required properties only; a string is its property name, a number or integer is
 * 1, a boolean is true; an enum takes its first value; an array has its minimum length; objects recurse.
 *
 * @example
 * schemaInstance({ type: 'object', required: ['city'], properties: { city: { type: 'string' } } })
 * // → { city: 'city' }
 */
export function schemaInstance(schema: unknown, name = '', root: unknown = schema, depth = 0): unknown {
  if (depth > 32 || typeof schema !== 'object' || schema === null) return null;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') return schemaInstance(resolveRef(root, s.$ref), name, root, depth + 1);
  if (Object.hasOwn(s, 'const')) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) {
      const first = options.find((o) => (o as { type?: unknown }).type !== 'null') ?? options[0];
      return schemaInstance(first, name, root, depth + 1);
    }
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? s.type[0]) : s.type;
  switch (type) {
    case 'string':
      return name || 'string';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: n }, () => schemaInstance(s.items, name, root, depth + 1));
    }
    default: {
      if (type !== 'object' && !s.properties) return null;
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      // Object.fromEntries, not assignment: a required `__proto__` must stay a key, not set a prototype.
      return Object.fromEntries(
        required.map((key) => [
          key,
          schemaInstance(Object.hasOwn(props, key) ? props[key] : {}, key, root, depth + 1),
        ]),
      );
    }
  }
}

/** Resolves a local JSON pointer such as `#/$defs/Address`. Remote refs resolve to nothing. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return {};
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node ?? {};
}
