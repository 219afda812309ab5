/**
 * What a request's schema may ask of the checks (issue 27, §2): a `$ref` loop that passes through no
 * property or item, a chain of thousands of `$ref`s, and a schema no finite value can match are
 * 400s when the request arrives, each found in time linear in the schema (no recursion that a long
 * chain overflows). Each schema is built fresh for its test: nothing cached hides its cost.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { checkRequestSchema } from '../../src/core/validation/request-schema';
import { MAX_SCHEMA_CHAIN } from '../../src/core/validation/schema-budgets';
import { countPaceCalls } from '../helpers/pace-count';

const format = { kind: 'response_format', name: 'out', param: 'text.format.schema' } as const;
const tool = { kind: 'function', name: 'f', param: 'tools[0].parameters' } as const;

/** The 400's message, or null when the schema is accepted; fails on any other error. */
async function refusal(schema: unknown, site: typeof format | typeof tool = format): Promise<string | null> {
  try {
    await checkRequestSchema(schema, site);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect([e.status, e.type, e.param]).toEqual([400, 'invalid_request_error', site.param]);
    return e.message;
  }
}

/** `#/$defs/D0` → D1 → … → Dn, a string. */
function chain(n: number) {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) $defs[`D${i}`] = { $ref: `#/$defs/D${i + 1}` };
  $defs[`D${n}`] = { type: 'string' };
  return { type: 'object', properties: { a: { $ref: '#/$defs/D0' } }, required: ['a'], $defs };
}

describe('a $ref loop for one value is a 400', () => {
  it.each([
    [{ type: 'object', allOf: [{ $ref: '#' }, { $ref: '#' }] }, "('allOf', 0)"],
    [{ allOf: [{ $ref: '#' }, { $ref: '#' }] }, "('allOf', 0)"],
    [{ anyOf: [{ type: 'string' }, { $ref: '#' }] }, "('anyOf', 1)"],
    [{ not: { $ref: '#' } }, "('not')"],
    [{ $defs: { A: { $ref: '#/$defs/B' }, B: { allOf: [{ $ref: '#/$defs/A' }] } }, $ref: '#/$defs/A' }, ''],
  ])('%j', async (schema, context) => {
    const { value: message, calls } = await countPaceCalls(() => refusal(schema));
    expect(message).toMatch(
      /leads back to this same schema for the same value, without passing through a property or an item/,
    );
    expect(message).toContain(`In context=${context || '('}`);
    // The work, counted (issue 38): a handful of paced steps for a handful of subschemas.
    expect(calls).toBeLessThanOrEqual(16);
  });

  it('recursion through a property or an item is fine', async () => {
    const tree = {
      type: 'object',
      properties: {
        kids: { type: 'array', items: { $ref: '#' } },
        next: { anyOf: [{ $ref: '#' }, { type: 'null' }] },
      },
      required: ['kids', 'next'],
      additionalProperties: false,
    };
    expect(await refusal(tree)).toBeNull();
  });
});

describe('a long $ref chain is a 400, not a stack overflow', () => {
  // Before: 2,000 links overflowed the stack of the recursive walk (a 500).
  // The work is counted, not timed (issue 38): the paced walks call pace() once per subschema or per
  // 256 steps, so a count over twice the subschemas would be a walk that is not linear.
  it.each([2_000, 20_000])('%i links → 400, in work linear in the links', async (n) => {
    const { value: message, calls } = await countPaceCalls(() => refusal(chain(n)));
    expect(message).toMatch(
      new RegExp(`more than ${MAX_SCHEMA_CHAIN} schemas apply to one value in a chain`),
    );
    expect(calls).toBeLessThanOrEqual(2 * n + 100);
  });

  it(`a chain of ${MAX_SCHEMA_CHAIN - 1} is still fine`, async () => {
    expect(await refusal(chain(MAX_SCHEMA_CHAIN - 2))).toBeNull();
  });
});

describe('a schema with no finite instance is a 400', () => {
  const selfRequired = {
    type: 'object',
    properties: { a: { $ref: '#' } },
    required: ['a'],
    additionalProperties: false,
  };

  it('a required property that recurses to the root: on text.format.schema and on a tool', async () => {
    const expected =
      "Invalid schema for response_format 'out': In context=('properties', 'a'), no value can match: '$ref' '#' leads back to a schema that requires this one, so every value would have to contain itself without end.";
    expect(await refusal(selfRequired)).toBe(expected);
    expect(await refusal(structuredClone(selfRequired), tool)).toBe(
      expected.replace("response_format 'out'", "function 'f'"),
    );
  });

  it.each([
    [
      'through $defs',
      {
        $ref: '#/$defs/N',
        $defs: { N: { type: 'object', properties: { n: { $ref: '#/$defs/N' } }, required: ['n'] } },
      },
    ],
    ['through allOf', { type: 'object', properties: { a: { allOf: [{ $ref: '#' }] } }, required: ['a'] }],
    [
      'every anyOf branch recurses',
      {
        type: 'object',
        properties: {
          a: {
            anyOf: [{ $ref: '#' }, { type: 'object', properties: { b: { $ref: '#' } }, required: ['b'] }],
          },
        },
        required: ['a'],
      },
    ],
    ['through minItems', { type: 'array', minItems: 1, items: { $ref: '#' } }],
    [
      'a mutual pair',
      {
        $defs: {
          A: { type: 'object', properties: { b: { $ref: '#/$defs/B' } }, required: ['b'] },
          B: { type: 'array', items: { $ref: '#/$defs/A' }, minItems: 2 },
        },
        $ref: '#/$defs/A',
      },
    ],
  ])('%s', async (_, schema) => {
    expect(await refusal(schema)).toMatch(/no value can match: .*without end/);
  });

  it.each([
    ['an optional property', { type: 'object', properties: { a: { $ref: '#' } } }],
    [
      'a nullable one',
      { type: 'object', properties: { a: { anyOf: [{ $ref: '#' }, { type: 'null' }] } }, required: ['a'] },
    ],
    ['an empty list allowed', { type: 'array', items: { $ref: '#' } }],
    [
      'items after enough prefixItems',
      { type: 'array', minItems: 1, prefixItems: [{ type: 'string' }], items: false },
    ],
    ['not an object only', { type: ['object', 'null'], properties: { a: { $ref: '#' } }, required: ['a'] }],
  ])('but recursion that can stop is fine: %s', async (_, schema) => {
    expect(await refusal(schema)).toBeNull();
  });

  it('the check is linear: 5,000 required objects nested through $defs (15,000 subschemas), counted', async () => {
    const $defs: Record<string, unknown> = {};
    const n = 5_000;
    // Each definition requires the next two (a DAG: shared, not copied); the last is a string.
    for (let i = 0; i < n; i++)
      $defs[`N${i}`] = {
        type: 'object',
        properties: {
          x: { $ref: `#/$defs/N${Math.min(i + 1, n)}` },
          y: { $ref: `#/$defs/N${Math.min(i + 2, n)}` },
        },
        required: ['x', 'y'],
      };
    $defs[`N${n}`] = { type: 'string' };
    const fine = await countPaceCalls(() => refusal({ $ref: '#/$defs/N0', $defs }));
    expect(fine.value).toBeNull();
    // The same with the last one recursing to the first: no finite instance.
    $defs[`N${n}`] = { $ref: '#/$defs/N0' };
    const looped = await countPaceCalls(() => refusal({ $ref: '#/$defs/N0', $defs }));
    expect(looped.value).toMatch(/no value can match/);
    // 3 subschemas per definition, one paced step each at most (issue 38: counted, not timed).
    for (const { calls } of [fine, looped]) expect(calls).toBeLessThanOrEqual(3 * n + 100);
  });
});
