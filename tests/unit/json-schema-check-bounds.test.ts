/**
 * The strict output check cannot explode (issue 27, §2): each (subschema, value) pair is judged once,
 * the work has a step budget and the recursion a depth bound, and past either the check says so
 * instead of hanging the worker every tab shares. Every schema here is built fresh for its test, so
 * no memory of an earlier run can hide what a new schema costs.
 */
import { describe, expect, it } from 'vitest';
import { checkJsonSchemaPaced, SchemaCheckLimitError } from '../../src/core/validation/json-schema-check';
import { MAX_CHECK_DEPTH, MAX_CHECK_STEPS } from '../../src/core/validation/schema-budgets';
import { strictTextErrorPaced } from '../../src/core/validation/strict-output';
import type { OutputFormatSpec } from '../../src/engine/types';
// Loading the request checker installs the linear-time engine that patterns run on, as in the server.
import '../../src/core/validation/request-schema';
import { cpuNow } from '../helpers/cpu-time';

/** Levels L0 … Ln: each `anyOf` of two `$ref`s to the next, for the same value (or for `v`, a level down). */
function refLevels(n: number, down: boolean) {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const next = { $ref: `#/$defs/L${i + 1}` };
    $defs[`L${i}`] = down
      ? {
          anyOf: [0, 1].map((k) => ({
            type: 'object',
            properties: { v: next, k: { const: k } },
            required: ['v'],
            additionalProperties: false,
          })),
        }
      : { anyOf: [next, { ...next }] };
  }
  $defs[`L${n}`] = { type: 'string' };
  return { $defs, $ref: '#/$defs/L0' };
}

function nested(levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { v };
  return v;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = cpuNow();
  const value = await work();
  return { value, ms: cpuNow() - start };
}

describe('the strict check judges each (subschema, value) pair once', () => {
  // Before: 2^n checks, doubling per level: 20 levels took 1.8 s, 30 about half an hour.
  it.each([30, 60])('%i levels of $refs under anyOf, for one value, fail in under 1 s', async (n) => {
    const { value, ms } = await timed(() => checkJsonSchemaPaced(refLevels(n, false), 5));
    expect(value).toBe('$: matches none of the allowed schemas');
    expect(ms).toBeLessThan(1000);
  });

  it.each([30, 60])('%i levels of $refs under anyOf, one value level each, in under 1 s', async (n) => {
    const { value, ms } = await timed(() => checkJsonSchemaPaced(refLevels(n, true), nested(n, 5)));
    expect(value).toBe('$: matches none of the allowed schemas');
    expect(ms).toBeLessThan(1000);
    // A matching value passes as fast.
    expect((await timed(() => checkJsonSchemaPaced(refLevels(n, true), nested(n, 'x')))).value).toBeNull();
  });

  // Before: each allOf doubled the work down to depth 64: 2^32 checks, a hang.
  it.each([
    [{ allOf: [{ $ref: '#' }, { $ref: '#' }] }],
    [{ type: 'object', allOf: [{ $ref: '#' }, { $ref: '#' }] }],
    [{ anyOf: [{ $ref: '#' }, { $ref: '#' }, { type: 'string' }] }],
    [
      {
        $defs: { a: { allOf: [{ $ref: '#/$defs/b' }, { $ref: '#/$defs/b' }] }, b: { $ref: '#/$defs/a' } },
        $ref: '#/$defs/a',
      },
    ],
  ])('a schema whose allOf or anyOf refers to itself ends in under 1 s: %j', async (schema) => {
    for (const value of [null, {}, 'x', [1, 2], { a: { b: 1 } }]) {
      const { ms } = await timed(() => checkJsonSchemaPaced(structuredClone(schema), value));
      expect(ms).toBeLessThan(1000);
    }
  });

  it('keeps the messages: a problem deep in a value names its path', async () => {
    const schema = {
      type: 'object',
      properties: { list: { type: 'array', items: { $ref: '#/$defs/item' } } },
      $defs: { item: { anyOf: [{ type: 'integer' }, { $ref: '#/$defs/item2' }] }, item2: { type: 'null' } },
    };
    expect(await checkJsonSchemaPaced(schema, { list: [1, null, 'x'] })).toBe(
      '$.list[2]: matches none of the allowed schemas',
    );
  });
});

describe('the strict check has a step budget and a depth bound', () => {
  /** 5,000 distinct strings, each found only in the last of 10 branches of 5,000-value enums. */
  const overBudget = () => {
    const values = Array.from({ length: 5_000 }, (_, i) => `v${i}`);
    const branches = Array.from({ length: 10 }, (_, b) => ({
      enum: b === 9 ? values : values.map((v) => `${v}-${b}`),
    }));
    return { schema: { type: 'array', items: { anyOf: branches } }, value: values };
  };

  it(`past ${MAX_CHECK_STEPS} steps it throws SchemaCheckLimitError, in under 2 s`, async () => {
    const { schema, value } = overBudget();
    const start = cpuNow();
    await expect(checkJsonSchemaPaced(schema, value)).rejects.toThrow(SchemaCheckLimitError);
    expect(cpuNow() - start).toBeLessThan(2000);
  });

  it('a strict response past the budget is a clear server_error, not a hang', async () => {
    const { schema, value } = overBudget();
    const format: OutputFormatSpec = { type: 'json_schema', name: 'out', strict: true, schema };
    const error = await strictTextErrorPaced(format, JSON.stringify(value));
    expect(error?.status).toBe(500);
    expect(error?.message).toMatch(
      /^The model's output could not be checked against the strict JSON schema 'out': checking it takes more than 1,000,000 steps/,
    );
  });

  it(`a value nested past ${MAX_CHECK_DEPTH} levels is refused, not a stack overflow`, async () => {
    const schema = { type: 'object', properties: { v: { $ref: '#' } } };
    expect(await checkJsonSchemaPaced(schema, nested(500, {}))).toBeNull();
    await expect(checkJsonSchemaPaced(schema, nested(5_000, {}))).rejects.toThrow(SchemaCheckLimitError);
  });

  it('a legitimate large output stays far under the budget: 20,000 objects in under 1 s', async () => {
    const schema = {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          name: { type: 'string', maxLength: 20 },
          tag: { enum: ['a', 'b'] },
        },
        required: ['id', 'name', 'tag'],
        additionalProperties: false,
      },
    };
    const value = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `n${i}`, tag: 'a' }));
    const { value: problem, ms } = await timed(() => checkJsonSchemaPaced(schema, value));
    expect(problem).toBeNull();
    expect(ms).toBeLessThan(1000);
  });
});
