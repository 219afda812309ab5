/**
 * The scripted model's instance of a schema is bounded (issue 27, §2b): an array has its minimum
 * length and required properties recurse, but past SCRIPTED_MAX_INSTANCE_VALUES values it stops,
 * before making the array that would pass it, with OpenAI's 400 on the schema's param.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import {
  InstanceTooLargeError,
  instanceForPaced,
  SCRIPTED_MAX_INSTANCE_VALUES,
  schemaInstancePaced,
} from '../../src/engine/scripted/schema-instance';
import { cpuNow } from '../helpers/cpu-time';

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = cpuNow();
  try {
    await work();
  } catch {}
  return cpuNow() - start;
}

describe('the scripted instance has a budget', () => {
  // Before: minItems 1e8 made a hundred million items (16 s).
  it('minItems 1e8 throws InstanceTooLargeError at once (under 100 ms)', async () => {
    const schema = { type: 'array', minItems: 1e8, items: { type: 'integer' } };
    await expect(schemaInstancePaced(schema)).rejects.toThrow(InstanceTooLargeError);
    expect(await timed(() => schemaInstancePaced(schema))).toBeLessThan(100);
  });

  it(`exactly the budget is written; one more is refused`, async () => {
    const list = (n: number) => ({ type: 'array', minItems: n, items: { type: 'integer' } });
    expect(await schemaInstancePaced(list(SCRIPTED_MAX_INSTANCE_VALUES - 1))).toHaveLength(
      SCRIPTED_MAX_INSTANCE_VALUES - 1,
    );
    await expect(schemaInstancePaced(list(SCRIPTED_MAX_INSTANCE_VALUES))).rejects.toThrow(
      InstanceTooLargeError,
    );
  });

  // Before: 2^32 values (the depth cut at 32), minutes and gigabytes.
  it('required properties sharing a definition 40 levels deep: refused in under 1 s', async () => {
    const $defs: Record<string, unknown> = { L40: { type: 'string' } };
    for (let i = 0; i < 40; i++) {
      const next = { $ref: `#/$defs/L${i + 1}` };
      $defs[`L${i}`] = { type: 'object', properties: { l: next, r: next }, required: ['l', 'r'] };
    }
    expect(await timed(() => schemaInstancePaced({ $ref: '#/$defs/L0', $defs }))).toBeLessThan(1000);
    await expect(schemaInstancePaced({ $ref: '#/$defs/L0', $defs })).rejects.toThrow(InstanceTooLargeError);
  });

  it('a long chain of $refs at every level stays off the end of the stack', async () => {
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 127; i++) $defs[`D${i}`] = { $ref: `#/$defs/D${i + 1}` };
    $defs.D127 = {
      anyOf: [
        { type: 'object', properties: { a: { $ref: '#/$defs/D0' } }, required: ['a'] },
        { type: 'null' },
      ],
    };
    await expect(schemaInstancePaced({ $ref: '#/$defs/D0', $defs })).resolves.not.toThrow();
  });

  it('instanceFor answers the 400 on the param it is given', async () => {
    const schema = { type: 'array', minItems: 1e8 };
    for (const [param, code] of [
      ['text.format.schema', 'invalid_json_schema'],
      ['tools[2].parameters', 'invalid_function_parameters'],
    ]) {
      try {
        await instanceForPaced(schema, param as string);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect(err).toMatchObject({ status: 400, param, code });
        expect((err as ApiError).message).toMatch(/more than 100,000 values/);
      }
    }
  });
});
