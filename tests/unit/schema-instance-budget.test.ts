/**
 * The scripted model's instance of a schema is bounded (issue 27, §2b): an array has its minimum
 * length and required properties recurse, but past SCRIPTED_MAX_INSTANCE_VALUES values it stops,
 * before making the array that would pass it, with OpenAI's 400 on the schema's param.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import {
  InstanceTooLargeError,
  instanceFor,
  SCRIPTED_MAX_INSTANCE_VALUES,
  schemaInstance,
} from '../../src/engine/scripted/schema-instance';
import { cpuNow } from '../helpers/cpu-time';

function timed(work: () => unknown): number {
  const start = cpuNow();
  try {
    work();
  } catch {}
  return cpuNow() - start;
}

describe('the scripted instance has a budget', () => {
  // Before: minItems 1e8 made a hundred million items (16 s).
  it('minItems 1e8 throws InstanceTooLargeError at once (under 100 ms)', () => {
    const schema = { type: 'array', minItems: 1e8, items: { type: 'integer' } };
    expect(() => schemaInstance(schema)).toThrow(InstanceTooLargeError);
    expect(timed(() => schemaInstance(schema))).toBeLessThan(100);
  });

  it(`exactly the budget is written; one more is refused`, () => {
    const list = (n: number) => ({ type: 'array', minItems: n, items: { type: 'integer' } });
    expect(schemaInstance(list(SCRIPTED_MAX_INSTANCE_VALUES - 1))).toHaveLength(
      SCRIPTED_MAX_INSTANCE_VALUES - 1,
    );
    expect(() => schemaInstance(list(SCRIPTED_MAX_INSTANCE_VALUES))).toThrow(InstanceTooLargeError);
  });

  // Before: 2^32 values (the depth cut at 32), minutes and gigabytes.
  it('required properties sharing a definition 40 levels deep: refused in under 1 s', () => {
    const $defs: Record<string, unknown> = { L40: { type: 'string' } };
    for (let i = 0; i < 40; i++) {
      const next = { $ref: `#/$defs/L${i + 1}` };
      $defs[`L${i}`] = { type: 'object', properties: { l: next, r: next }, required: ['l', 'r'] };
    }
    expect(timed(() => schemaInstance({ $ref: '#/$defs/L0', $defs }))).toBeLessThan(1000);
    expect(() => schemaInstance({ $ref: '#/$defs/L0', $defs })).toThrow(InstanceTooLargeError);
  });

  it('a long chain of $refs at every level stays off the end of the stack', () => {
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 127; i++) $defs[`D${i}`] = { $ref: `#/$defs/D${i + 1}` };
    $defs.D127 = {
      anyOf: [
        { type: 'object', properties: { a: { $ref: '#/$defs/D0' } }, required: ['a'] },
        { type: 'null' },
      ],
    };
    expect(() => schemaInstance({ $ref: '#/$defs/D0', $defs })).not.toThrow();
  });

  it('instanceFor answers the 400 on the param it is given', () => {
    const schema = { type: 'array', minItems: 1e8 };
    for (const [param, code] of [
      ['text.format.schema', 'invalid_json_schema'],
      ['tools[2].parameters', 'invalid_function_parameters'],
    ]) {
      try {
        instanceFor(schema, param as string);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect(err).toMatchObject({ status: 400, param, code });
        expect((err as ApiError).message).toMatch(/more than 100,000 values/);
      }
    }
  });
});
