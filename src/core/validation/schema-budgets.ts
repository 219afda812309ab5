/**
 * The bounds on JSON Schema work, in one place. A schema that fits the body cap can still ask for
 * unbounded work: `$ref`s under `anyOf` that the output check revisits (2^30 steps for 30 levels),
 * a root that is `allOf` of two `$ref`s to itself (2^32), a chain of thousands of `$ref`s (a stack
 * overflow). The request check refuses what it can decide (a 400), and the output check stops at
 * its step budget (a clear 500) instead of hanging the worker that every tab shares.
 */

/**
 * The longest chain of schemas one value is checked against at once: `$ref`, `allOf`, `anyOf`,
 * `oneOf`, `not`, `if`/`then`/`else` and `dependentSchemas` lead from a schema to another for the
 * same value. Literal nesting cannot reach it (a body nests at most 128 levels); a chain of `$ref`s
 * longer than this is a 400.
 */
export const MAX_SCHEMA_CHAIN = 128;

/**
 * The most work the strict output check does for one response: one step per (schema, value) pair
 * it judges, plus one per enum value, required key, object key, array item and string character it
 * reads. Each pair is judged once, so a legitimate output needs a few steps per value; past this,
 * the response fails with a `server_error` that says the schema is too complex to check.
 */
export const MAX_CHECK_STEPS = 1_000_000;

/**
 * How deep the output check recurses: the value's own nesting plus the schema chain at each level.
 * Past it the response fails with a clear `server_error`, not a stack overflow.
 */
export const MAX_CHECK_DEPTH = 1_000;
