/**
 * Issue 45: forced `custom` calls sampled by real llama.cpp. The CI-built `llama-server` samples the
 * tiny GGUF (random weights) under the grammar intab's wllama engine builds for a forced custom
 * tool, over many seeds, for a JSON family (Llama 3.2: the input JSON-escaped in `parameters`) and
 * the raw one (Qwen3.5: the input as it is between `<parameter=input>` tags). Every finished reply
 * is one the grammar accepts and one call whose `input`, read back by the family's reader, matches
 * the tool's grammar by an independent matcher (a JavaScript RegExp of the definition).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customInput, customSpec, loadCustomGrammars } from '../../src/engine/custom-grammar';
import { forcedCalls } from '../helpers/forced-calls';
import { LLAMA_BUILD_MS, type LlamaServer, startLlamaServer } from '../helpers/llama-server';

const SEEDS = 20;
const MAX_TOKENS = 120;

const TOOLS = [
  {
    tool: {
      name: 'phone',
      format: { type: 'grammar' as const, syntax: 'regex' as const, definition: '\\d{3}-\\d{4}' },
    },
    oracle: /^\d{3}-\d{4}$/,
  },
  {
    tool: {
      name: 'tags',
      format: {
        type: 'grammar' as const,
        syntax: 'lark' as const,
        definition: 'start: WORD (SEP WORD) ~ 0..2\nSEP: "," | "\\"" | "\\\\"\nWORD: /[a-z]{1,4}/',
      },
    },
    oracle: /^[a-z]{1,4}(?:(?:,|"|\\)[a-z]{1,4}){0,2}$/,
  },
];

let server: LlamaServer;
beforeAll(async () => {
  await loadCustomGrammars();
  server = await startLlamaServer();
}, LLAMA_BUILD_MS);
afterAll(() => server?.stop());

describe.each(['Llama-3.2-1B-Instruct-q4f16_1-MLC', 'Qwen3.5-0.8B-q4f16_1-MLC'])(
  'forced custom calls on %s, sampled by llama.cpp',
  (model) => {
    it.each(TOOLS)(
      'every input of $tool.name matches its grammar',
      async ({ tool, oracle }) => {
        const calls = await forcedCalls(server, model, customSpec(tool), {
          seeds: SEEDS,
          maxTokens: MAX_TOKENS,
        });
        for (const { where, args } of calls) expect(customInput(args), where).toMatch(oracle);
        // The grammar bounds every input, so random weights finish most replies within the budget.
        expect(calls.length).toBeGreaterThan(SEEDS / 2);
      },
      300_000,
    );
  },
);
