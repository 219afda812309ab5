/**
 * Schemas are checked when the request arrives (issue 15, class 4): a `json_schema` format and every
 * function tool's `parameters` must be a valid JSON Schema (draft 2020-12), with patterns a linear-time
 * engine runs, local `$ref`s that resolve, and something that satisfies them. OpenAI answers 400
 * `invalid_json_schema` on `text.format.schema` (`invalid_function_parameters` on a tool's
 * parameters), and so does intab, before anything is stored or generated. A user pattern never runs
 * on a backtracking engine: the strict output check runs it in linear time.
 */
import { describe, expect, it } from 'vitest';
import { checkRequestSchema } from '../../src/core/validation/request-schema';
import { fastestBlock, longestBlock } from '../helpers/event-loop';
import { makeRig } from '../helpers/server';
import { expectError, fakeEngine } from './create-helpers';

const format = (schema: unknown, strict = true) => ({
  model: 'scripted',
  input: 'x',
  text: { format: { type: 'json_schema', name: 'out', strict, schema } },
});
const obj = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

type Bad = [name: string, schema: unknown, message: string];
const bad: Bad[] = [
  [
    'an invalid pattern',
    obj({ a: { type: 'string', pattern: '(' } }),
    "In context=('properties', 'a'), 'pattern' is not a regular expression intab can run: missing closing ): `(`.",
  ],
  [
    'a pattern with a lookbehind',
    obj({ a: { type: 'string', pattern: '(?<=a)b' } }),
    "In context=('properties', 'a'), 'pattern' is not a regular expression intab can run: invalid named capture: `(?<=a)b`.",
  ],
  [
    'an invalid patternProperties key',
    { type: 'object', patternProperties: { '[': { type: 'string' } } },
    "In context=('patternProperties'), '[' is not a regular expression intab can run: missing closing ]: `[`.",
  ],
  [
    'an unknown type',
    obj({ a: { type: 'strin' } }),
    "In context=('properties', 'a', 'type'), must be equal to one of the allowed values: 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'.",
  ],
  [
    'required that is not a list',
    { type: 'object', required: 'a' },
    "In context=('required'), must be array.",
  ],
  [
    'an unresolvable $ref',
    obj({ a: { $ref: '#/$defs/Missing' } }),
    "In context=('properties', 'a'), '$ref' '#/$defs/Missing' does not resolve to a schema in this document.",
  ],
  [
    'minLength above maxLength',
    obj({ a: { type: 'string', minLength: 5, maxLength: 2 } }),
    "In context=('properties', 'a'), no value can match: 'minLength' 5 is above 'maxLength' 2.",
  ],
  [
    'minimum above maximum in a $def',
    { ...obj({ n: { $ref: '#/$defs/N' } }), $defs: { N: { type: 'integer', minimum: 3, maximum: 1 } } },
    "In context=('$defs', 'N'), no value can match: 'minimum' 3 is above 'maximum' 1.",
  ],
  [
    'an empty enum',
    obj({ a: { enum: [] } }),
    "In context=('properties', 'a'), no value can match: 'enum' is empty.",
  ],
  [
    'an enum none of whose values has the type',
    obj({ a: { type: 'string', enum: [1, 2] } }),
    "In context=('properties', 'a'), no value can match: no 'enum' value is of type 'string'.",
  ],
  [
    'a const of another type',
    obj({ a: { type: 'number', const: 'x' } }),
    "In context=('properties', 'a'), no value can match: 'const' is not of type 'number'.",
  ],
  [
    'a false required property',
    obj({ a: false }),
    "In context=('properties', 'a'), no value can match: the schema is false.",
  ],
  ['not {}', { not: {} }, "In context=(), no value can match: 'not' excludes every value."],
  [
    'a required key that additionalProperties: false forbids',
    { type: 'object', properties: { a: { type: 'string' } }, required: ['b'], additionalProperties: false },
    "In context=(), no value can match: required property 'b' is not allowed by 'additionalProperties': false.",
  ],
  [
    'anyOf of unsatisfiable branches',
    obj({ a: { anyOf: [{ enum: [] }, false] } }),
    "In context=('properties', 'a', 'anyOf', 1), no value can match: the schema is false.",
  ],
];

describe('text.format.schema is checked when the request arrives', () => {
  for (const [name, schema, context] of bad) {
    for (const strict of [true, false]) {
      it(`${name} (strict: ${strict}) → 400 invalid_json_schema, nothing stored`, async () => {
        const { call, store } = makeRig();
        const res = await call('POST', '/responses', format(schema, strict));
        const message = await expectError(res, 400, 'text.format.schema', 'invalid_json_schema');
        expect(message).toBe(`Invalid schema for response_format 'out': ${context}`);
        expect((await store.listRecent(10)).responses).toHaveLength(0);
      });
    }
  }

  it('accepts the schemas it should: $defs, recursion, draft-07 definitions, unknown keywords', async () => {
    const { call } = makeRig();
    const good = [
      obj({ a: { type: 'string', pattern: '^[a-z]+$', format: 'email' } }),
      {
        ...obj({ n: { $ref: '#/$defs/Node' } }),
        $defs: { Node: obj({ next: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] } }) },
      },
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        ...obj({ a: { $ref: '#/definitions/A' } }),
        definitions: { A: { type: 'string' } },
      },
      { ...obj({ a: { type: ['string', 'null'], 'x-note': 1 } }), description: 'd' },
      obj({ a: { type: 'string', enum: ['x', 1] } }),
    ];
    for (const schema of good) {
      const res = await call('POST', '/responses', format(schema));
      expect(res.status, JSON.stringify(schema)).toBe(200);
    }
  });

  it('runs a catastrophic pattern in linear time when it checks the output', async () => {
    const schema = obj({ a: { type: 'string', pattern: '^(a+)+$' } });
    // The scripted model answers {"a":"a"}, which matches.
    const ok = await makeRig().call('POST', '/responses', format(schema));
    expect(ok.status).toBe(200);
    // A model that answers 30 a's and a '!' would hang a backtracking engine for minutes.
    const text = JSON.stringify({ a: `${'a'.repeat(30_000)}!` });
    const rig = makeRig({ engine: fakeEngine([{ type: 'text', delta: text }]) });
    const body = format(schema);
    await rig.call('POST', '/responses', body);
    const { value: res, blockedMs } = await fastestBlock(3, () => rig.call('POST', '/responses', body));
    expect(blockedMs).toBeLessThan(100);
    // The model broke a strict schema: OpenAI's server_error, and quickly.
    expect(res.status).toBe(500);
    expect((await res.json()).error.message).toMatch(/\$\.a: does not match \^\(a\+\)\+\$/);
  });
});

describe('function tool parameters are checked too', () => {
  it('on /responses: 400 invalid_function_parameters on tools[i].parameters', async () => {
    const { call, store } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: 'x',
      tools: [
        { type: 'function', name: 'ok', parameters: obj({}) },
        {
          type: 'function',
          name: 'bad',
          strict: false,
          parameters: obj({ a: { type: 'string', pattern: '(' } }),
        },
      ],
    });
    const message = await expectError(res, 400, 'tools[1].parameters', 'invalid_function_parameters');
    expect(message).toMatch(
      /^Invalid schema for function 'bad': In context=\('properties', 'a'\), 'pattern' is not/,
    );
    expect((await store.listRecent(10)).responses).toHaveLength(0);
  });

  it('on /responses/input_tokens as on create', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses/input_tokens', {
      model: 'scripted',
      input: 'x',
      tools: [
        {
          type: 'function',
          name: 'f',
          parameters: { type: 'object', properties: { a: { minItems: 3, maxItems: 1 } }, required: ['a'] },
        },
      ],
    });
    await expectError(res, 400, 'tools[0].parameters', 'invalid_function_parameters');
  });

  it('on /chat/completions: response_format and tools[i].function.parameters', async () => {
    const { call } = makeRig();
    const messages = [{ role: 'user', content: 'x' }];
    const format = await call('POST', '/chat/completions', {
      model: 'scripted',
      messages,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'out', strict: true, schema: obj({ a: { enum: [] } }) },
      },
    });
    expect(await expectError(format, 400, 'response_format', 'invalid_json_schema')).toBe(
      "Invalid schema for response_format 'out': In context=('properties', 'a'), no value can match: 'enum' is empty.",
    );
    const tools = await call('POST', '/chat/completions', {
      model: 'scripted',
      messages,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', required: 5 } } }],
    });
    await expectError(tools, 400, 'tools[0].function.parameters', 'invalid_function_parameters');
  });
});

describe('checking a large schema stays fast', () => {
  const wide = (n: number, tag = '') => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < n; i++)
      properties[`p${i}`] = {
        type: 'string',
        pattern: `^p${i % 50}${tag}[a-z]*$`,
        description: 'd'.repeat(20),
      };
    return {
      type: 'object',
      properties,
      required: ['p0'],
      additionalProperties: { minLength: 3, maxLength: 1 },
    };
  };

  it("checks 5,000 properties (OpenAI's most) with 50 patterns: no turn of the loop over 100 ms, cold and warm", async () => {
    const site = { kind: 'response_format', name: 'out', param: 'text.format.schema' } as const;
    // Cold: a schema never seen (new patterns too, so no compiled pattern is reused), in a fresh
    // process state as far as this file goes; then warm, after V8 has optimised the code.
    // The fastest of three runs, each on a schema never seen, so a scheduling hiccup of a loaded
    // machine is not read as the check's cost, and no cache helps either.
    let k = 0;
    const cold = await fastestBlock(3, () => checkRequestSchema(wide(5_000, `cold${k++}`), site));
    expect(cold.blockedMs).toBeLessThan(100);
    for (let i = 0; i < 3; i++) await checkRequestSchema(wide(5_000, `warm${i}`), site);
    const warm = await fastestBlock(3, () => checkRequestSchema(wide(5_000, 'warm'), site));
    expect(warm.blockedMs).toBeLessThan(100);
  });

  it('answers a request with a 1,000-property schema in under 100 ms of event-loop time, cold and warm', async () => {
    const { call } = makeRig();
    // Cold: the first request with this schema and its patterns, nothing cached for it.
    const cold = await longestBlock(() => call('POST', '/responses', format(wide(1_000, 'cold1k'), false)));
    expect(cold.blockedMs).toBeLessThan(100);
    expect(cold.value.status).toBe(200);
    const body = JSON.stringify(format(wide(1_000), false));
    for (let i = 0; i < 3; i++) await call('POST', '/responses', body);
    const { value: res, blockedMs } = await fastestBlock(3, () => call('POST', '/responses', body));
    expect(blockedMs).toBeLessThan(100);
    expect(res.status).toBe(200);
  });
});
