/**
 * The strict output check and the scripted model's schema instance run in slices that yield (issue 27,
 * §4: no single synchronous step of the engine worker over 50 ms): sliced, with a yield at every
 * chance, they give exactly what one unsliced turn gives (the same problem, the same instance, the
 * same errors), and a big one
 * never holds the event loop for long: counted as slices of bounded work with a yield between them
 * (tests/helpers/pace-count.ts), so a loaded machine reads the same as an idle one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsSchema } from '../../bench/heavy-requests';
import { checkJsonSchemaPaced, SchemaCheckLimitError } from '../../src/core/validation/json-schema-check';
import {
  InstanceTooLargeError,
  SCRIPTED_MAX_INSTANCE_VALUES,
  schemaInstancePaced,
} from '../../src/engine/scripted/schema-instance';
import { countPaced, inOneTurn } from '../helpers/pace-count';
// Loading the request checker installs the linear-time engine that patterns run on, as in the server.
import '../../src/core/validation/request-schema';

/** The result or the error's class and message, for comparing a sliced run with an unsliced one. */
async function outcomeAsync(work: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await work() };
  } catch (err) {
    return { error: (err as Error).name, message: (err as Error).message };
  }
}

/** `work` sliced at every chance: pace() yields at each call. */
async function sliced<T>(work: () => Promise<T>): Promise<T> {
  return (await countPaced(work)).value;
}

/** `n` rows that match rowsSchema, the row at `bad` (if any) with a wrong tag. */
function rows(n: number, salt: string, bad = -1) {
  return {
    rows: Array.from({ length: n }, (_, i) => ({ id: i, name: `n${i}`, tag: i === bad ? 'x' : `t${salt}` })),
  };
}

describe('the strict output check in slices', () => {
  it('gives what the synchronous check gives (200 random values against fresh row schemas)', async () => {
    let k = 0;
    const row = fc.record({
      id: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double()),
      name: fc.string(),
      tag: fc.constantFrom('tp', 'other', 'x'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.record({ rows: fc.array(row, { maxLength: 30 }) }), fc.jsonValue()),
        async (value) => {
          const schema = rowsSchema(2, `p${k++}`);
          (
            schema.properties as { rows: { items: { properties: { tag: { enum: string[] } } } } }
          ).rows.items.properties.tag.enum = ['tp', 'other'];
          expect(await outcomeAsync(() => sliced(() => checkJsonSchemaPaced(schema, value)))).toEqual(
            await outcomeAsync(() => inOneTurn(() => checkJsonSchemaPaced(schema, value))),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('finds the same problem deep in a 60,000-row output, and stops at the step budget as before', async () => {
    const schema = rowsSchema(1, 'deep');
    const value = rows(60_000, 'deep', 59_998);
    expect(await sliced(() => checkJsonSchemaPaced(schema, value))).toBe(
      await inOneTurn(() => checkJsonSchemaPaced(schema, value)),
    );
    expect(await checkJsonSchemaPaced(schema, value)).toMatch(/^\$\.rows\[59998\]\.tag: /);
    const huge = rows(200_000, 'huge');
    await expect(checkJsonSchemaPaced(rowsSchema(1, 'huge'), huge)).rejects.toThrow(SchemaCheckLimitError);
  });

  // Before: one synchronous step of 122-124 ms for 60,000 rows (this machine, loaded). Counted, not
  // timed (issue 38): the check runs in slices of at most 256 rows' work (2,048 steps), yielding between.
  it('checks a 60,000-row output in slices of at most 256 rows, yielding between them', async () => {
    const { value, calls, yields } = await countPaced(() =>
      checkJsonSchemaPaced(rowsSchema(1, 'b'), rows(60_000, 'b')),
    );
    expect(value).toBeNull();
    expect(calls).toBeGreaterThanOrEqual(60_000 / 256);
    expect(yields).toBeGreaterThanOrEqual(calls - 1);
  });
});

describe("the scripted model's instance in slices", () => {
  it('is the same instance, and the same budget error', async () => {
    for (const schema of [
      rowsSchema(3, 'same'),
      {
        $defs: { A: { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, required: ['a'] } },
        $ref: '#/$defs/A',
      },
      { anyOf: [{ type: 'null' }, { type: 'array', minItems: 2, items: { enum: ['x'] } }] },
      { type: 'array', minItems: SCRIPTED_MAX_INSTANCE_VALUES, items: { type: 'integer' } },
    ])
      expect(await outcomeAsync(() => sliced(() => schemaInstancePaced(schema, 'n')))).toEqual(
        await outcomeAsync(() => inOneTurn(() => schemaInstancePaced(schema, 'n'))),
      );
    await expect(schemaInstancePaced(rowsSchema(30_000, 'big'))).rejects.toThrow(InstanceTooLargeError);
  });

  // Before: one synchronous step of 37-40 ms (this machine, loaded) for the largest instance the budget
  // allows. Counted, not timed (issue 38): slices of at most 600 rows (2,048 subschemas), yielding between.
  it('writes the largest instance the budget allows in slices of at most 600 rows, yielding between them', async () => {
    const { value, calls, yields } = await countPaced(() => schemaInstancePaced(rowsSchema(24_000, 'i')));
    expect((value as { rows: unknown[] }).rows).toHaveLength(24_000);
    expect(calls).toBeGreaterThanOrEqual(24_000 / 600);
    expect(yields).toBeGreaterThanOrEqual(calls - 1);
  });
});
