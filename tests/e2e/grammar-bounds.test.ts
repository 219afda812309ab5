/**
 * Issue 27's grammar bounds in Chromium with the real llama.cpp (wllama's WebAssembly) on the tiny
 * test GGUF. A schema whose grammar llama.cpp would refuse (a repetition past its threshold, a
 * pattern it cannot run, a grammar past the size budget) is a 400 naming its param before any
 * download; after each such request a normal one is answered (the engine is not stuck); and a sample
 * of the grammars the converters write for large and random schemas is loaded by llama.cpp itself
 * and generates.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../src/engine/types';
import { preflightGrammar } from '../../src/engine/wllama/grammar/grammar-preflight';
import { jsonSchemaArb } from '../helpers/grammar-arbitraries';
import {
  largeLegitSchema,
  longTupleSchema,
  manyOptionalSchema,
  nestedOptionalSchema,
  refChainSchema,
  repeatedQuantifierPattern,
} from '../helpers/grammar-repros';
import { type Answer, isCached, respond } from './grammar-bounds.page';
import { type AppSession, openApp } from './harness';

const TINY_URL = '/test-models/intab-tiny-random.gguf';
// The JSON instruction carries the schema into the prompt: the tiny model's whole context (8192).
const options = {
  wllama: { stallTimeoutMs: 60_000, models: [{ id: 'tiny', url: TINY_URL, contextSize: 8192 }] },
};
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
});
afterAll(() => app?.close());

type Json = Record<string, unknown>;
const withSchema = (schema: Json): Json => ({
  model: 'tiny',
  input: 'Answer in JSON.',
  max_output_tokens: 16,
  text: { format: { type: 'json_schema', name: 'out', schema, strict: false } },
});
const withTool = (parameters: Json): Json => ({
  model: 'tiny',
  input: 'Call the tool.',
  max_output_tokens: 16,
  tools: [
    { type: 'function', name: 'ok', parameters: { type: 'object', properties: {} }, strict: false },
    { type: 'function', name: 'bad', parameters, strict: false },
  ],
});
const normal: Json = { model: 'tiny', input: 'hi', max_output_tokens: 16 };

/** Requests whose grammar llama.cpp would refuse, and the param each 400 names. */
const hostile: Array<[string, Json, string]> = [
  ['maxLength 3000', withSchema({ type: 'string', maxLength: 3000 }), 'text.format.schema'],
  ['minItems 1e8', withSchema({ type: 'array', minItems: 1e8 }), 'text.format.schema'],
  ['minimum 1e20', withSchema({ type: 'integer', minimum: 1e20 }), 'text.format.schema'],
  [
    'an enum past the size budget',
    withSchema({ enum: Array.from({ length: 120_000 }, (_, i) => `v${i}`) }),
    'text.format.schema',
  ],
  ['a tool with maxItems 5000', withTool({ type: 'array', maxItems: 5000 }), 'tools[1].parameters'],
];

function expectRefused(a: Answer, param: string): void {
  expect([a.status, a.param]).toEqual([400, param]);
  expect(a.message).toMatch(/too complex|cannot|llama\.cpp|beyond/);
}

describe('grammars llama.cpp would refuse (issue 27 §1)', () => {
  it('are a 400 naming the param, before any download', async () => {
    for (const [, body, param] of hostile) expectRefused(await app.page.evaluate(respond, body), param);
    expect(await app.page.evaluate(isCached, 'tiny')).toBe(false);
  });

  it('leave the engine answering: after each, a normal request is a 200', async () => {
    for (const [what, body, param] of hostile) {
      expectRefused(await app.page.evaluate(respond, body), param);
      const next = await app.page.evaluate(respond, normal);
      expect([what, next.status]).toEqual([what, 200]);
    }
  });
});

/** Whether the preflight (in Node) accepts `schema`: the sample keeps only those. */
async function accepted(schema: Json): Promise<boolean> {
  try {
    await preflightGrammar({
      tools: [],
      toolChoice: 'auto',
      format: { type: 'json_schema', name: 'x', schema, strict: false },
    } as unknown as GenerateRequest);
    return true;
  } catch {
    return false;
  }
}

describe('grammars the converters write run in real llama.cpp (issue 27 §6)', () => {
  const fixed: Array<[string, Json]> = [
    ['a nested schema of optional properties', nestedOptionalSchema(8)],
    ['700 optional properties', manyOptionalSchema(700)],
    // (The prompt carries the schema: the larger repros at a size that fits the tiny model's context.)
    // (`items: false` is left out: the request validator's strict rules refuse it first.)
    ['a 1500-item tuple', { ...longTupleSchema(1500, 2), items: undefined }],
    // (The request validator overflows its stack on a 1000-link chain in Chromium: issue 27 §2.)
    ['a 100-link $ref chain', refChainSchema(100)],
    ['a schema of 3 definitions of 30 described properties', largeLegitSchema(3)],
    [
      'maxLength 2000 (llama.cpp refuses 2001 and up, or runs them unbounded)',
      { type: 'string', maxLength: 2000 },
    ],
    ['pattern ^(a*)*$ (no left recursion to llama.cpp)', { type: 'string', pattern: '^(a*)*$' }],
    ['a{1} x 2000', { type: 'string', pattern: `^${repeatedQuantifierPattern(2000)}$` }],
    ['zod integer bounds', { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }],
    [
      "pydantic's allOf [$ref]",
      {
        $defs: { A: { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] } },
        type: 'object',
        properties: { a: { allOf: [{ $ref: '#/$defs/A' }], description: 'd' } },
        required: ['a'],
      },
    ],
  ];

  it('the repro schemas: each a 200, then a normal request too', async () => {
    for (const [what, schema] of fixed) {
      expect([what, await accepted(schema)]).toEqual([what, true]);
      const a = await app.page.evaluate(respond, withSchema(schema));
      expect([what, a.status, a.message]).toEqual([what, 200, null]);
      expect(['completed', 'incomplete']).toContain(a.state);
    }
    expect((await app.page.evaluate(respond, normal)).status).toBe(200);
  }, 300_000);

  it('a sample of random schemas (fast-check, 24 of them): each the preflight accepts is a 200', async () => {
    const sample = fc
      .sample(jsonSchemaArb('small', 1000), { numRuns: 60, seed: 42 })
      .filter((s) => JSON.stringify(s).length < 20_000)
      .slice(0, 24);
    let ran = 0;
    for (const schema of sample) {
      const a = await app.page.evaluate(respond, withSchema(schema));
      const what = JSON.stringify(schema).slice(0, 300);
      if (!(await accepted(schema))) expect([what, a.status]).toEqual([what, 400]);
      else if (a.status === 200) ran++;
      // The request validator has rules of its own (OpenAI's strict-schema rules): a clean 400 first.
      else expect([what, a.status, a.message]).toEqual([what, 400, expect.stringMatching(/^Invalid schema/)]);
    }
    expect(ran).toBeGreaterThanOrEqual(3);
    expect((await app.page.evaluate(respond, normal)).status).toBe(200);
    expect(app.pageErrors).toEqual([]);
  });
});
