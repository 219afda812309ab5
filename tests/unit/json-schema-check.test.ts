import { describe, expect, it } from 'vitest';
import { sealReasoning, unsealReasoning } from '../../src/core/responses/request/sealed-reasoning';
import { checkJsonSchemaPaced } from '../../src/core/validation/json-schema-check';
import { cpuNow } from '../helpers/cpu-time';
// Loading the request checker installs the linear-time engine that patterns run on, as in the server.
import '../../src/core/validation/request-schema';
import { schemaInstancePaced } from '../../src/engine/scripted/schema-instance';
import { scriptedLogprob } from '../../src/engine/scripted/scripted-engine';

const person = {
  type: 'object',
  $defs: { tag: { type: 'string', enum: ['a', 'b'] } },
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$' },
    age: { type: ['integer', 'null'], minimum: 0, maximum: 150 },
    tags: { type: 'array', items: { $ref: '#/$defs/tag' }, minItems: 1, maxItems: 2 },
    kind: { anyOf: [{ const: 'x' }, { type: 'number', exclusiveMinimum: 0 }] },
  },
  required: ['name', 'age', 'tags', 'kind'],
  additionalProperties: false,
};
const ok = { name: 'ann', age: 30, tags: ['a'], kind: 'x' };

describe('checkJsonSchema (strict subset)', () => {
  it('accepts a matching value and the scripted instance of a schema', async () => {
    expect(await checkJsonSchemaPaced(person, ok)).toBeNull();
    expect(await checkJsonSchemaPaced(person, { ...ok, age: null, kind: 2 })).toBeNull();
    expect(
      await checkJsonSchemaPaced(
        person,
        await schemaInstancePaced({
          ...person,
          properties: { ...person.properties, name: { type: 'string' } },
        }),
      ),
    ).toBeNull();
  });

  it.each([
    [{ ...ok, name: 7 }, '$.name: expected string, got number'],
    [{ ...ok, name: '' }, '$.name: shorter than 1'],
    [{ ...ok, name: 'abcdef' }, '$.name: longer than 5'],
    [{ ...ok, name: 'Ann' }, '$.name: does not match ^[a-z]+$'],
    [{ ...ok, age: 1.5 }, '$.age: expected integer or null, got number'],
    [{ ...ok, age: 151 }, '$.age: above 150'],
    [{ ...ok, tags: [] }, '$.tags: fewer than 1 items'],
    [{ ...ok, tags: ['a', 'b', 'a'] }, '$.tags: more than 2 items'],
    [{ ...ok, tags: ['c'] }, '$.tags[0]: "c" is not one of ["a","b"]'],
    [{ ...ok, kind: 0 }, '$.kind: matches none of the allowed schemas'],
    [{ ...ok, extra: 1 }, "$: unexpected property 'extra'"],
    [{ name: 'a', age: 1, tags: ['a'] }, "$: missing required property 'kind'"],
    [[ok], '$: expected object, got array'],
  ])('rejects %j', async (value, problem) => {
    expect(await checkJsonSchemaPaced(person, value)).toBe(problem);
  });

  it('reads required properties as own keys: {} has no toString or __proto__', async () => {
    const schema = { type: 'object', required: ['toString', '__proto__'] };
    expect(await checkJsonSchemaPaced(schema, {})).toBe("$: missing required property 'toString'");
    expect(await checkJsonSchemaPaced(schema, JSON.parse('{"toString":"a"}'))).toBe(
      "$: missing required property '__proto__'",
    );
    expect(await checkJsonSchemaPaced(schema, JSON.parse('{"toString":"a","__proto__":"b"}'))).toBeNull();
  });

  // CPU time, not wall time: the cost of the work, whatever else a loaded machine runs (issue 38).
  it('runs a catastrophic pattern in time linear in the text', async () => {
    const start = cpuNow();
    expect(await checkJsonSchemaPaced({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(20_000)}!`)).toBe(
      '$: does not match ^(a+)+$',
    );
    expect(cpuNow() - start).toBeLessThan(100);
  });
});

describe('scripted logprobs', () => {
  it('are certain, with alternatives at decreasing logprobs and UTF-8 bytes', () => {
    expect(scriptedLogprob(' hé', 3)).toEqual({
      token: ' hé',
      logprob: 0,
      bytes: [32, 104, 195, 169],
      top_logprobs: [
        { token: ' hé', logprob: 0, bytes: [32, 104, 195, 169] },
        { token: ' alt1', logprob: -1, bytes: [32, 97, 108, 116, 49] },
        { token: ' alt2', logprob: -2, bytes: [32, 97, 108, 116, 50] },
      ],
    });
    expect(scriptedLogprob('x', 0).top_logprobs).toEqual([]);
  });
});

describe('reasoning encrypted_content', () => {
  it('round-trips, and refuses foreign or altered strings', () => {
    const item = {
      id: 'rs_1',
      type: 'reasoning' as const,
      summary: [{ type: 'summary_text' as const, text: 's' }],
      content: [{ type: 'reasoning_text' as const, text: 'ünïcode' }],
    };
    const sealed = sealReasoning(item);
    expect(unsealReasoning(sealed)).toEqual({ content: item.content, summary: item.summary });
    expect(unsealReasoning('gAAAAB')).toBeUndefined();
    expect(unsealReasoning(`${sealed.slice(0, -4)}!!!!`)).toBeUndefined();
  });
});
