/**
 * The grammar intab hands web-llm for a family, walked over a real vocabulary with the real token ids
 * of what the family writes: the checks tests/unit/webllm/grammar-tokens.test.ts (Qwen, Llama 3) and
 * real-vocabularies.test.ts (Mistral, Hermes, Phi-4, Gemma 3) both make, each over its tokenizers.
 */
import { expect } from 'vitest';
import type { FunctionToolSpec, GenerateRequest } from '../../src/engine/types';
import { boundJsonWhitespace, type XGrammarLike } from '../../src/engine/webllm/webllm-grammar';
import { planChatRequest } from '../../src/engine/webllm/webllm-request';
import type { RealTokenizer } from './tokenizers';
import { request } from './webllm-fakes';
import { matchTokens, xgrammar } from './xgrammar';

/** What a family writes (tests/unit/webllm/families.ts): one call, two calls, a schema-breaking one. */
export interface FamilyReplies {
  model: string;
  one: string;
  two: string;
  bad: string;
  /** What a model that always thinks writes first. */
  think?: string;
}

/** The `response_format` the engine hands web-llm: planned, then its JSON whitespace bounded. */
export async function webllmFormatFor(model: string, over: Partial<GenerateRequest>) {
  const { body } = planChatRequest(request({ model, ...over }), { vision: false });
  const xg = (await xgrammar()) as unknown as XGrammarLike;
  return (await boundJsonWhitespace(xg, body.response_format)) ?? {};
}

/**
 * The walks, as test bodies; `tokenizer` is read when a walk runs (a test may load it in beforeAll).
 * @example
 * const walks = grammarWalks(family, [weather, clock], () => tokenizer);
 * it('refuses arguments the schema forbids', walks.refusesBrokenArguments);
 */
export function grammarWalks(
  family: FamilyReplies,
  tools: FunctionToolSpec[],
  tokenizer: () => RealTokenizer,
) {
  const think = family.think ?? '';
  const auto = () => webllmFormatFor(family.model, { tools });
  const required = () => webllmFormatFor(family.model, { tools, toolChoice: 'required' });
  return {
    /** One call, two calls and prose under auto: every token accepted, ending at the stop token. */
    async autoAcceptsCallsAndProse() {
      for (const text of [family.one, family.two, 'It is sunny in Paris.']) {
        const ids = tokenizer().encode(think + text);
        expect(await matchTokens(await auto(), tokenizer(), think + text)).toEqual({
          accepted: ids.length,
          complete: true,
        });
      }
    },
    /** A call that breaks the schema is refused at the token where it goes wrong. */
    async refusesBrokenArguments() {
      const text = think + family.bad;
      const run = await matchTokens(await auto(), tokenizer(), text);
      expect(run.complete).toBe(false);
      expect(run.accepted).toBeGreaterThan(0);
      expect(run.accepted).toBeLessThan(tokenizer().encode(text).length);
    },
    /** Under required, prose is refused and the call accepted. */
    async requiredRefusesProse() {
      const prose = await matchTokens(await required(), tokenizer(), `${think}It is sunny in Paris.`);
      expect(prose.complete).toBe(false);
      expect((await matchTokens(await required(), tokenizer(), think + family.one)).complete).toBe(true);
    },
    /**
     * A json_schema answer is held to its schema, and to bounded whitespace: a real token of many
     * spaces is one sampling step, which the bounded whitespace masks at once.
     */
    async jsonSchemaHeld() {
      const schema = {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' } },
        required: ['city', 'days'],
        additionalProperties: false,
      };
      const format = await webllmFormatFor(family.model, {
        format: { type: 'json_schema', name: 'forecast', schema, strict: true },
      });
      const answer = (text: string) => matchTokens(format, tokenizer(), think + text);
      expect((await answer('{"city": "Paris", "days": 3}')).complete).toBe(true);
      expect((await answer('{"city": "Paris", "days": "3"}')).complete).toBe(false);
      expect((await answer(`{"city": "Paris",${' '.repeat(20)}"days": 3}`)).complete).toBe(false);
    },
  };
}
