import { invalidRequest } from '../../common/api-error';
import { resolveFragment } from '../../common/json-pointer';
import { pace } from '../../common/pace';
import { patternExample } from './pattern-example';

/**
 * The most JSON values (objects, arrays, strings, numbers, …) the `scripted` model writes for one
 * schema. An array has its minimum length, so `minItems: 1e8` asked for a hundred million items (16 s
 * of one synchronous turn, then a 200 MB answer), and required properties that share a definition
 * double at every level. A schema whose instance is larger is a 400 before anything runs.
 */
export const SCRIPTED_MAX_INSTANCE_VALUES = 100_000;

/** How deep the instance nests before a recursive schema's branch is cut short with null. */
const MAX_INSTANCE_DEPTH = 32;
/**
 * How many schemas the instance follows from the root to any one value, `$ref`s and first branches
 * included: the stack it recurses on stays shallow, whatever the schema (the request check allows
 * chains of 128 per value, and 32 levels of them would be 4,096 frames).
 */
const MAX_INSTANCE_PATH = 512;

/** The instance of a schema would have more than {@link SCRIPTED_MAX_INSTANCE_VALUES} values. */
export class InstanceTooLargeError extends Error {
  override name = 'InstanceTooLargeError';
}

/**
 * A deterministic instance of a JSON Schema, as the `scripted` model's tool arguments and structured
 * output (DESIGN.md): required properties only; a string is its property name, a number or integer is
 * 1, a boolean is true; an enum takes its first value; an array has its minimum length; objects recurse.
 * Throws {@link InstanceTooLargeError} rather than write more than {@link SCRIPTED_MAX_INSTANCE_VALUES}
 * values: the count is checked before an array is made, so the work is bounded by the budget too.
 *
 * It runs in slices that yield to the loop ({@link pace}): a 20,000-row instance took ~30 ms of one
 * synchronous step, on the worker every tab shares.
 *
 * @example
 * await schemaInstancePaced({ type: 'object', required: ['city'], properties: { city: { type: 'string' } } })
 * // → { city: 'city' }
 * await schemaInstancePaced({ type: 'array', minItems: 2, items: { type: 'integer' } }) // → [1, 1]
 */
export async function schemaInstancePaced(schema: unknown, name = ''): Promise<unknown> {
  const steps = instanceSteps(schema, name);
  let next = steps.next();
  while (!next.done) {
    await pace();
    next = steps.next();
  }
  return next.value;
}

/** How many subschemas the instance follows between two chances to yield. */
const SLICE_BUILDS = 2048;

/** The instance's work as a generator that yields (nothing) every {@link SLICE_BUILDS} subschemas. */
function instanceSteps(schema: unknown, name: string): Generator<void, unknown, void> {
  const root = schema;
  // Values are counted where their container is made: the root, each array slot, each property.
  let values = 1;
  let builds = 0;
  const spend = (n: number) => {
    values += n;
    if (values > SCRIPTED_MAX_INSTANCE_VALUES)
      throw new InstanceTooLargeError(
        `the smallest value the scripted model writes for this schema has more than ${SCRIPTED_MAX_INSTANCE_VALUES.toLocaleString('en-US')} values (each array has its 'minItems' items, each object its required properties), and it writes at most that many`,
      );
  };
  function* build(schema: unknown, name: string, depth: number, path = 0): Generator<void, unknown, void> {
    if (++builds % SLICE_BUILDS === 0) yield;
    if (depth > MAX_INSTANCE_DEPTH || path > MAX_INSTANCE_PATH) return null;
    if (typeof schema !== 'object' || schema === null) return null;
    const s = schema as Record<string, unknown>;
    // A remote ref, or one that names nothing, is an empty schema: any value (null here).
    if (typeof s.$ref === 'string')
      return yield* build(resolveFragment(root, s.$ref) ?? {}, name, depth, path + 1);
    if (Object.hasOwn(s, 'const')) return s.const;
    if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const options = s[key];
      if (Array.isArray(options) && options.length > 0) {
        const first = options.find((o) => (o as { type?: unknown }).type !== 'null') ?? options[0];
        return yield* build(first, name, depth, path + 1);
      }
    }
    const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? s.type[0]) : s.type;
    switch (type) {
      case 'string':
        return (typeof s.pattern === 'string' ? patternExample(s.pattern) : null) ?? (name || 'string');
      case 'number':
      case 'integer':
        return 1;
      case 'boolean':
        return true;
      case 'null':
        return null;
      case 'array': {
        const n = typeof s.minItems === 'number' && s.minItems > 0 ? Math.ceil(s.minItems) : 0;
        // Counted before the array is made: `minItems: 1e8` must not allocate first.
        spend(n);
        const items: unknown[] = [];
        for (let i = 0; i < n; i++) items.push(yield* build(s.items, name, depth + 1, path + 1));
        return items;
      }
      default: {
        if (type !== 'object' && !s.properties) return null;
        const props = (s.properties ?? {}) as Record<string, unknown>;
        const required = Array.isArray(s.required) ? (s.required as string[]) : [];
        spend(required.length);
        // Object.fromEntries, not assignment: a required `__proto__` must stay a key, not set a prototype.
        const entries: [string, unknown][] = [];
        for (const key of required)
          entries.push([
            key,
            yield* build(Object.hasOwn(props, key) ? props[key] : {}, key, depth + 1, path + 1),
          ]);
        return Object.fromEntries(entries);
      }
    }
  }
  return build(schema, name, 0);
}

/**
 * {@link schemaInstancePaced} as a request's answer: past the budget, OpenAI's 400 on `param`
 * (`text.format.schema`, or `tools[i].parameters`).
 *
 * @example
 * await instanceForPaced(req.format.schema, 'text.format.schema');
 * await instanceForPaced({ type: 'array', minItems: 1e8 }, 'text.format.schema'); // rejects with a 400
 */
export async function instanceForPaced(schema: unknown, param: string, name = ''): Promise<unknown> {
  try {
    return await schemaInstancePaced(schema, name);
  } catch (err) {
    throw tooLarge(err, param);
  }
}

/** The budget's error as OpenAI's 400 on `param`; anything else as it was. */
function tooLarge(err: unknown, param: string): unknown {
  if (!(err instanceof InstanceTooLargeError)) return err;
  const code = param.startsWith('tools') ? 'invalid_function_parameters' : 'invalid_json_schema';
  return invalidRequest(param, `Invalid schema for the scripted model: ${err.message}.`, code);
}
