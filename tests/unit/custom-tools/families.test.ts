/**
 * A forced `custom` call on every family (issue 45), at both engines' grammars: the family's own
 * rendering of a call whose `input` is a string is accepted by the wllama GBNF (the tests' GBNF
 * recognizer) and by web-llm's grammar (real xgrammar) exactly when the independent matcher (a
 * JavaScript RegExp of the definition) accepts the input, and the family's reader gives the input
 * back unchanged. JSON families write the input JSON-escaped, Qwen3.5 raw between its tags.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { customInput, customSpec, loadCustomGrammars } from '../../../src/engine/custom-grammar';
import { familyOf } from '../../../src/engine/tool-formats';
import type { GenerateRequest } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { callsOf } from '../../helpers/engine-chunks';
import { gbnfMatches, parseGbnf } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';
import { webllmFormatFor } from '../../helpers/grammar-walks';
import { responseFormatAccepts } from '../../helpers/xgrammar';
import { FAMILIES } from '../webllm/families';

// The converters' chunk, as a route loads it before the parse.
beforeAll(() => loadCustomGrammars());

const TOOLS = [
  {
    tool: {
      name: 'phone',
      format: { type: 'grammar' as const, syntax: 'regex' as const, definition: '\\d{3}-\\d{4}' },
    },
    oracle: /^\d{3}-\d{4}$/,
    valid: fc.tuple(fc.stringMatching(/^\d{3}$/), fc.stringMatching(/^\d{4}$/)).map(([a, b]) => `${a}-${b}`),
  },
  {
    tool: {
      name: 'calc',
      format: {
        type: 'grammar' as const,
        syntax: 'lark' as const,
        definition: 'start: NUM (OP NUM)*\nOP: "+" | "\\"" | "\\\\" | "\\n" | "<"\nNUM: /[0-9]{1,3}/',
      },
    },
    oracle: /^[0-9]{1,3}(?:(?:\+|"|\\|\n|<)[0-9]{1,3})*$/,
    valid: fc
      .array(fc.tuple(fc.constantFrom('+', '"', '\\', '\n', '<'), fc.stringMatching(/^[0-9]{1,3}$/)), {
        maxLength: 4,
      })
      .chain((ops) => fc.stringMatching(/^[0-9]{1,3}$/).map((n) => n + ops.map(([o, m]) => o + m).join(''))),
  },
];

/** A valid input changed: a character dropped, or one added the grammar may or may not take. */
const mutated = (s: string, k: number) =>
  [s.slice(1), `${s}-`, `${s}x`, `${s.slice(0, k % (s.length + 1))}"${s.slice(k % (s.length + 1))}`][
    k % 4
  ] as string;

const forced = (
  model: string,
  name: string,
  spec: ReturnType<typeof customSpec>,
): Partial<GenerateRequest> => ({
  model,
  tools: [spec],
  toolChoice: { name },
  parallelToolCalls: false,
});

describe.each(FAMILIES.filter((f) => !f.vision))('a forced custom call on $model', (family) => {
  const think = family.think ?? '';
  // The family's history rendering of the call, less the call id Mistral's history adds (a model writes none).
  const write = (name: string, input: string) =>
    think +
    familyOf(family.model)
      .tools.renderCalls([{ name, arguments: JSON.stringify({ input }), callId: 'c1' }])
      .replace(/, "id": "[a-z0-9]+"\}\]$/, '}]');

  it.each(TOOLS)(
    'wllama: the GBNF takes exactly the inputs of $tool.name, read back unchanged',
    async ({ tool, oracle, valid }) => {
      const spec = customSpec(tool);
      const plan = await planWllamaRequest(generateRequest(forced(family.model, tool.name, spec)), {
        family: familyOf(family.model),
        invalidUtf8: [],
      });
      const grammar = parseGbnf(plan.params.grammar as string);
      fc.assert(
        fc.property(valid, fc.nat(), (input, k) => {
          const text = write(tool.name, input);
          expect(gbnfMatches(grammar, text), text).toBe(true);
          const reader = new ReplyAssembler(plan.reply);
          const chunks = [
            ...reader.push(text),
            ...reader.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }),
          ];
          expect(callsOf(chunks).map((c) => customInput(c.arguments))).toEqual([input]);
          const other = mutated(input, k);
          expect(gbnfMatches(grammar, write(tool.name, other)), other).toBe(oracle.test(other));
        }),
        { numRuns: 25 },
      );
    },
  );

  it.each(TOOLS)(
    'web-llm: xgrammar takes exactly the inputs of $tool.name',
    async ({ tool, oracle, valid }) => {
      const format = await webllmFormatFor(family.model, forced(family.model, tool.name, customSpec(tool)));
      const inputs = fc.sample(valid, { numRuns: 4, seed: 45 });
      for (const [k, input] of inputs.entries()) {
        expect(await responseFormatAccepts(format, write(tool.name, input)), input).toBe(true);
        const other = mutated(input, k);
        expect(await responseFormatAccepts(format, write(tool.name, other)), other).toBe(oracle.test(other));
      }
    },
  );
});
