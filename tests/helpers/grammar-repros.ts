/**
 * The schemas and patterns of issue 27 that once made the grammar converters quadratic or
 * exponential, built fresh on each call (so no cache can hide what a new schema costs).
 *
 * @example
 * jsonSchemaToGbnf(nestedOptionalSchema()); // 60 s and 4.9 MB at 9ae0540
 */

type Json = Record<string, unknown>;

/**
 * Objects nested `depth` deep, each with three scalar optional properties and the next level as
 * its last optional property: ~900 bytes at the default depth. Every optional property used to be
 * rebuilt once per earlier one, so the innermost object was built 4^depth times.
 */
export function nestedOptionalSchema(depth = 8, salt = ''): Json {
  let schema: Json = { type: 'object', properties: { [`leaf${salt}`]: { type: 'string' } } };
  for (let i = 0; i < depth; i++) {
    schema = {
      type: 'object',
      properties: {
        [`a${i}${salt}`]: { type: 'string' },
        [`b${i}`]: { type: 'integer' },
        [`c${i}`]: { type: 'boolean' },
        [`next${i}`]: schema,
      },
    };
  }
  return schema;
}

/** One object with `count` optional string properties (a large Zod object of optional fields). */
export function manyOptionalSchema(count = 2000, salt = ''): Json {
  const properties: Json = {};
  for (let i = 0; i < count; i++) properties[`field_${salt}${i}`] = { type: 'string' };
  return { type: 'object', properties };
}

/** A chain of `links` `$ref`s, each definition pointing at the next, ending at a string. */
export function refChainSchema(links = 5000): Json {
  const $defs: Json = {};
  for (let i = 0; i < links; i++) $defs[`d${i}`] = { $ref: `#/$defs/d${i + 1}` };
  $defs[`d${links}`] = { type: 'string' };
  return { $defs, $ref: '#/$defs/d0' };
}

/** A tuple of `count` integers (`prefixItems`), the first `minItems` required. */
export function longTupleSchema(count = 3000, minItems = count): Json {
  return {
    type: 'array',
    prefixItems: Array.from({ length: count }, () => ({ type: 'integer' })),
    minItems,
    items: false,
  };
}

/** `a{1}` repeated `count` times: each quantifier once rescanned the rest of the pattern. */
export function repeatedQuantifierPattern(count = 20000): string {
  return 'a{1}'.repeat(count);
}

/**
 * A legitimate large schema (~450 KB): 60 definitions of objects with 30 described properties each
 * (strings, bounded integers, enums, dates, arrays of other definitions, a nested object), as an
 * OpenAPI document turned into a tool might be.
 */
export function largeLegitSchema(defs = 60, salt = ''): Json {
  const $defs: Json = {};
  const describe = (i: number) =>
    `Field ${i}${salt}: ${'a description an app writes for the model. '.repeat(3)}`;
  for (let d = 0; d < defs; d++) {
    const properties: Json = {};
    for (let p = 0; p < 30; p++) {
      const kind = p % 6;
      properties[`field_${d}_${p}`] =
        kind === 0
          ? { type: 'string', description: describe(p), maxLength: 200 }
          : kind === 1
            ? { type: 'integer', minimum: 0, maximum: 10_000 + p, description: describe(p) }
            : kind === 2
              ? {
                  enum: Array.from({ length: 12 }, (_, i) => `option_${d}_${p}_${i}`),
                  description: describe(p),
                }
              : kind === 3
                ? { type: 'string', format: 'date-time', description: describe(p) }
                : kind === 4
                  ? { type: 'array', items: { $ref: `#/$defs/Def${(d + 1) % defs}` }, maxItems: 20 }
                  : {
                      type: 'object',
                      properties: {
                        x: { type: 'number' },
                        y: { type: 'boolean' },
                        z: { type: 'string', pattern: '^[A-Z]{2}-\\d{4}$' },
                      },
                      required: ['x'],
                      description: describe(p),
                    };
    }
    $defs[`Def${d}`] = {
      type: 'object',
      properties,
      required: Object.keys(properties).slice(0, 10),
      additionalProperties: false,
    };
  }
  return { $defs, $ref: '#/$defs/Def0' };
}

/**
 * A legitimate strict schema: `n` objects of three described fields each, nested two levels, with
 * `text(k)` writing each description's `k` characters (fresh text per call keeps a run cold).
 * @example
 * describedFieldsSchema(1_300, (k) => 'the quick brown fox '.repeat(k).slice(0, k)); // ~450 KB
 */
export function describedFieldsSchema(n: number, text: (chars: number) => string): Json {
  const properties: Json = {};
  for (let i = 0; i < n; i++)
    properties[`field_${i}`] = {
      type: 'object',
      description: `Entry ${i}: ${text(60)}`,
      properties: {
        name: { type: 'string', description: `The name of entry ${i}, ${text(40)}` },
        count: { type: 'integer', description: `How many of entry ${i}` },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
      },
      required: ['name', 'count', 'tags'],
      additionalProperties: false,
    };
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}
