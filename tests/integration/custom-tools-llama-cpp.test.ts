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
import { familyOf } from '../../src/engine/tool-formats';
import { ReplyAssembler } from '../../src/engine/webllm/webllm-reply';
import { planWllamaRequest } from '../../src/engine/wllama/wllama-request';
import { callsOf } from '../helpers/engine-chunks';
import { gbnfMatches } from '../helpers/gbnf-match';
import { generateRequest } from '../helpers/generate-request';
import { LLAMA_BUILD_MS, type LlamaServer, postJson, startLlamaServer } from '../helpers/llama-server';

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

const complete = (body: Record<string, unknown>) =>
  postJson<{ content: string; stop_type: string }>(server, '/completion', body);

describe.each(['Llama-3.2-1B-Instruct-q4f16_1-MLC', 'Qwen3.5-0.8B-q4f16_1-MLC'])(
  'forced custom calls on %s, sampled by llama.cpp',
  (model) => {
    it.each(TOOLS)(
      'every input of $tool.name matches its grammar',
      async ({ tool, oracle }) => {
        const request = generateRequest({
          model,
          tools: [customSpec(tool)],
          toolChoice: { name: tool.name },
          parallelToolCalls: false,
          reasoningEffort: 'none',
        });
        const plan = await planWllamaRequest(request, { family: familyOf(model), invalidUtf8: [] });
        const grammar = plan.params.grammar as string;
        let finished = 0;
        for (let seed = 1; seed <= SEEDS; seed++) {
          const out = await complete({
            prompt: 'Call the tool.',
            grammar,
            seed,
            n_predict: MAX_TOKENS,
            temperature: 1,
          });
          if (out.stop_type !== 'eos') continue;
          finished += 1;
          const where = `seed ${seed}: ${JSON.stringify(out.content)}`;
          expect(gbnfMatches(grammar, out.content), where).toBe(true);
          const reader = new ReplyAssembler(plan.reply);
          const chunks = [
            ...reader.push(out.content),
            ...reader.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }),
          ];
          const calls = callsOf(chunks);
          expect(
            calls.map((c) => c.name),
            where,
          ).toEqual([tool.name]);
          expect(customInput((calls[0] as { arguments: string }).arguments), where).toMatch(oracle);
        }
        // The grammar bounds every input, so random weights finish most replies within the budget.
        expect(finished).toBeGreaterThan(SEEDS / 2);
      },
      300_000,
    );
  },
);
