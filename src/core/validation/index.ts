/**
 * Schemas and checks: the JSON nesting bound on request bodies, the strict output check, and the
 * analyses a request's JSON Schema passes before anything runs, with their budgets. `request-schema.ts`
 * (ajv and re2js, about 300 KB) is not re-exported here: callers load it with `import()` when a
 * request carries a schema, so the worker's first chunk stays small.
 *
 * @example
 * import { strictOutputErrorPaced } from '../validation';
 */
export * from './json-depth';
export * from './json-schema-check';
export * from './schema-budgets';
export * from './strict-output';
