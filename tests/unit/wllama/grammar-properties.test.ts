/**
 * Property tests of the llama.cpp grammar converters (issue 27 §6): random JSON Schemas and regex
 * patterns, small and large, each converted cold (fast-check builds every one afresh). Each must
 * convert within its stated time bound into a grammar within the size budget that llama.cpp's
 * parser (replayed by llama-limits.ts) accepts and an independent recognizer parses, or be refused
 * cleanly: an UnsupportedSchemaError / UnsupportedPatternError / GrammarTooComplexError (a 400),
 * never a RangeError, a TypeError or a partial grammar. A sample of such grammars runs in real
 * llama.cpp in Chromium in tests/e2e/grammar-bounds.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error';
import type { GenerateRequest } from '../../../src/engine/types';
import { GrammarTooComplexError, MAX_GRAMMAR_BYTES } from '../../../src/engine/wllama/grammar/grammar-budget';
import { preflightGrammar } from '../../../src/engine/wllama/grammar/grammar-preflight';
import {
  jsonSchemaToGbnf,
  UnsupportedSchemaError,
} from '../../../src/engine/wllama/grammar/json-schema-gbnf';
import { checkLlamaGrammarPaced } from '../../../src/engine/wllama/grammar/llama-limits';
import { regexToGbnf, UnsupportedPatternError } from '../../../src/engine/wllama/grammar/regex-gbnf';
import { cpuNow } from '../../helpers/cpu-time';
import { parseGbnf } from '../../helpers/gbnf-match';
import { jsonSchemaArb, regexArb } from '../../helpers/grammar-arbitraries';

/** Bound on one conversion of a small random schema or pattern (they take about a millisecond). */
const SMALL_MS = 500;
/** Bound on one conversion of a large one (tens of milliseconds; a quadratic converter took seconds to minutes). */
const LARGE_MS = 2_000;

type Outcome = { grammar: string } | { refused: Error };

/** Converts cold and times it; a refusal must be one of the clean, 400-bound errors. */
function convert(f: () => string, boundMs: number): Outcome {
  const started = cpuNow();
  let outcome: Outcome;
  try {
    outcome = { grammar: f() };
  } catch (err) {
    if (
      !(err instanceof UnsupportedSchemaError) &&
      !(err instanceof UnsupportedPatternError) &&
      !(err instanceof GrammarTooComplexError)
    ) {
      throw err;
    }
    outcome = { refused: err };
  }
  expect(cpuNow() - started).toBeLessThan(boundMs);
  return outcome;
}

/** A grammar within the budget, accepted by llama.cpp's rules and parsed by the test recognizer. */
async function expectUsable(grammar: string): Promise<void> {
  expect(grammar.length).toBeLessThanOrEqual(MAX_GRAMMAR_BYTES);
  await checkLlamaGrammarPaced(grammar);
  parseGbnf(grammar);
}

/** The same schema through the preflight: null, or a 400 naming the param. */
async function preflightOf(schema: Record<string, unknown>): Promise<ApiError | null> {
  try {
    await preflightGrammar({
      tools: [],
      toolChoice: 'auto',
      format: { type: 'json_schema', name: 'p', schema, strict: true },
    } as unknown as GenerateRequest);
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    expect([err.status, err.type, err.param]).toEqual([400, 'invalid_request_error', 'text.format.schema']);
    expect(err.message.length).toBeLessThan(1000);
    return err;
  }
}

async function checkSchema(schema: Record<string, unknown>, boundMs: number): Promise<void> {
  const outcome = convert(() => jsonSchemaToGbnf(schema), boundMs);
  if ('grammar' in outcome) {
    // The converter's grammar may still be one llama.cpp refuses: then the preflight says so.
    let accepted = true;
    try {
      await checkLlamaGrammarPaced(outcome.grammar);
    } catch {
      accepted = false;
    }
    if (accepted) await expectUsable(outcome.grammar);
    expect((await preflightOf(schema)) === null).toBe(accepted);
  } else {
    expect(await preflightOf(schema)).not.toBeNull();
  }
}

describe('random JSON Schemas', () => {
  it('small ones: a usable grammar within 500 ms, or a clean 400 (500 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(jsonSchemaArb('small'), (schema) => checkSchema(schema, SMALL_MS)),
      { numRuns: 500, seed: 27 },
    );
  });

  it('large ones (thousands of properties, deep nesting, long enums): within 2 s, or a clean 400 (30 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(jsonSchemaArb('large'), async (schema) => {
        expect(JSON.stringify(schema).length).toBeLessThan(2_000_000);
        await checkSchema(schema, LARGE_MS);
      }),
      { numRuns: 30, seed: 2727 },
    );
  }, 120_000);
});

describe('random regex patterns', () => {
  const asGrammar = (body: string) => `root ::= "\\"" ${body} "\\""\n`;

  it('small ones: a usable grammar within 500 ms, or a clean 400 (500 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(regexArb('small'), async (pattern) => {
        const outcome = convert(() => regexToGbnf(pattern), SMALL_MS);
        if ('grammar' in outcome) parseGbnf(asGrammar(outcome.grammar));
        await checkSchema({ type: 'string', pattern }, SMALL_MS);
      }),
      { numRuns: 500, seed: 270 },
    );
  });

  it('large ones (tens of thousands of characters): within 2 s, or a clean 400 (30 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(regexArb('large'), async (pattern) => {
        expect(pattern.length).toBeLessThan(1_000_000);
        const outcome = convert(() => regexToGbnf(pattern), LARGE_MS);
        if ('grammar' in outcome) parseGbnf(asGrammar(outcome.grammar));
        await checkSchema({ type: 'string', pattern }, LARGE_MS);
      }),
      { numRuns: 30, seed: 2700 },
    );
  }, 120_000);
});
