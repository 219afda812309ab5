/**
 * Property tests (issue 27, §6): random JSON Schemas, with `$ref`s to the root and to definitions,
 * `anyOf`/`allOf`/`oneOf`/`not` nesting and recursion, and random values, through the request check,
 * the strict output check and the scripted model's instance. Whatever the schema, each ends within its
 * stated time, with a result or a clean error: a 400 `ApiError` at request time, a
 * `SchemaCheckLimitError` from the output check, an `InstanceTooLargeError` from the instance.
 * Runs: 300 random schemas × values, 100 amplifiers (diamonds of `$ref`s), 20 wide schemas.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { checkJsonSchemaPaced, SchemaCheckLimitError } from '../../src/core/validation/json-schema-check';
import { checkRequestSchema } from '../../src/core/validation/request-schema';
import { InstanceTooLargeError, schemaInstancePaced } from '../../src/engine/scripted/schema-instance';
import { cpuNow } from '../helpers/cpu-time';

const site = { kind: 'response_format', name: 'out', param: 'text.format.schema' } as const;
/** The bound each step must end within: a hang or an exponential blow-up breaks it by far. */
const STEP_MS = 2_000;

const DEFS = ['D0', 'D1', 'D2'];
const ref = fc.constantFrom('#', ...DEFS.map((d) => `#/$defs/${d}`)).map(($ref) => ({ $ref }));
const leaf = fc.oneof(
  fc
    .constantFrom('string', 'integer', 'number', 'boolean', 'null', 'object', 'array')
    .map((type) => ({ type })),
  fc.record({
    enum: fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  }),
  fc.record({ const: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()) }),
  fc.record({
    type: fc.constant('string'),
    minLength: fc.nat(3),
    maxLength: fc.nat(4),
    pattern: fc.constantFrom('^a*$', '^(a+)+$', '[0-9]'),
  }),
  fc.record({
    type: fc.constant('integer'),
    minimum: fc.integer({ min: -5, max: 5 }),
    maximum: fc.integer({ min: -5, max: 5 }),
  }),
  fc.boolean(),
  ref,
);
const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('schema') }),
    fc
      .record({
        a: tie('schema'),
        b: tie('schema'),
        required: fc.subarray(['a', 'b', 'c']),
        additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
      })
      .map(({ a, b, required, additionalProperties }) => ({
        type: 'object',
        properties: { a, b },
        required,
        additionalProperties,
      })),
    fc
      .record({
        items: tie('schema'),
        minItems: fc.nat(3),
        prefixItems: fc.array(tie('schema'), { maxLength: 2 }),
      })
      .map((s) => ({ type: 'array', ...s })),
  ),
}));
const rooted = fc.record({ root: schema, defs: fc.tuple(schema, schema, schema) }).map(({ root, defs }) => ({
  ...(typeof root === 'object' && root !== null ? root : { allOf: [root] }),
  $defs: Object.fromEntries(DEFS.map((d, i) => [d, defs[i]])),
}));

/** Runs `work` and returns how long it took; a thrown error must be one of `allowed`. */
async function within(work: () => unknown, allowed: (new (...a: never[]) => Error)[]): Promise<number> {
  const start = cpuNow();
  try {
    await work();
  } catch (err) {
    if (!allowed.some((type) => err instanceof type)) throw err;
  }
  return cpuNow() - start;
}

describe('random schemas end in bounded time with a result or a clean error', () => {
  it('request check, strict check and scripted instance (300 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        rooted,
        fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 3 }),
        async (s, values) => {
          let accepted = true;
          const requestMs = await within(
            () =>
              checkRequestSchema(s, site).catch((err: unknown) => {
                accepted = false;
                expect(err).toBeInstanceOf(ApiError);
                expect((err as ApiError).status).toBe(400);
                expect((err as ApiError).param).toBe('text.format.schema');
              }),
            [],
          );
          expect(requestMs).toBeLessThan(STEP_MS);
          // The output check holds whatever the request check said (it also runs where no request did).
          for (const value of values)
            expect(await within(() => checkJsonSchemaPaced(s, value), [SchemaCheckLimitError])).toBeLessThan(
              STEP_MS,
            );
          if (!accepted) return;
          let instance: unknown;
          const instanceMs = await within(async () => {
            instance = await schemaInstancePaced(s);
          }, [InstanceTooLargeError]);
          expect(instanceMs).toBeLessThan(STEP_MS);
          expect(await within(() => checkJsonSchemaPaced(s, instance), [SchemaCheckLimitError])).toBeLessThan(
            STEP_MS,
          );
        },
      ),
      { numRuns: 300, seed: 27 },
    );
  }, 120_000);
});

describe('amplifiers end in bounded time', () => {
  /** n levels, each `anyOf`/`allOf` of k references to the next level: k^n paths, n·k subschemas. */
  const diamond = fc
    .record({
      n: fc.integer({ min: 10, max: 60 }),
      k: fc.integer({ min: 2, max: 4 }),
      op: fc.constantFrom('anyOf', 'allOf', 'oneOf'),
      down: fc.boolean(),
      leaf: fc.constantFrom({ type: 'string' }, { type: 'integer' }, { enum: ['x'] }),
    })
    .map(({ n, k, op, down, leaf }) => {
      const $defs: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const next = { $ref: `#/$defs/L${i + 1}` };
        const sub = down ? { type: 'object', properties: { v: next }, required: ['v'] } : next;
        $defs[`L${i}`] = { [op]: Array.from({ length: k }, () => ({ ...sub })) };
      }
      $defs[`L${n}`] = leaf;
      return { schema: { $defs, $ref: '#/$defs/L0' }, n, down };
    });

  it('diamonds of $refs under anyOf/allOf/oneOf, for one value or a level each (100 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(diamond, fc.jsonValue({ maxDepth: 3 }), async ({ schema, n, down }, leafValue) => {
        let value: unknown = leafValue;
        if (down) for (let i = 0; i < n; i++) value = { v: value };
        expect(await within(() => checkRequestSchema(schema, site), [ApiError])).toBeLessThan(STEP_MS);
        expect(await within(() => checkJsonSchemaPaced(schema, value), [SchemaCheckLimitError])).toBeLessThan(
          STEP_MS,
        );
        expect(await within(() => schemaInstancePaced(schema), [InstanceTooLargeError])).toBeLessThan(
          STEP_MS,
        );
      }),
      { numRuns: 100, seed: 27 },
    );
  }, 120_000);

  it('wide schemas of up to 5,000 properties with shared definitions (20 runs)', async () => {
    const wide = fc
      .record({ n: fc.integer({ min: 100, max: 5_000 }), required: fc.boolean() })
      .map(({ n, required }) => {
        const properties: Record<string, unknown> = {};
        for (let i = 0; i < n; i++)
          properties[`p${i}`] = { anyOf: [{ $ref: '#/$defs/T' }, { $ref: '#/$defs/T' }] };
        return {
          type: 'object',
          properties,
          required: required ? Object.keys(properties) : [],
          $defs: {
            T: {
              type: 'object',
              properties: { x: { type: 'array', items: { $ref: '#/$defs/T' } } },
              required: ['x'],
            },
          },
        };
      });
    await fc.assert(
      fc.asyncProperty(wide, async (schema) => {
        expect(await within(() => checkRequestSchema(schema, site), [])).toBeLessThan(STEP_MS * 2);
        let instance: unknown;
        expect(
          await within(async () => (instance = await schemaInstancePaced(schema)), [InstanceTooLargeError]),
        ).toBeLessThan(STEP_MS);
        expect(await checkJsonSchemaPaced(schema, instance)).toBeNull();
      }),
      { numRuns: 20, seed: 27 },
    );
  }, 120_000);
});
