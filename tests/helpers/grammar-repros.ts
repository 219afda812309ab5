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
