/**
 * The grammars intab sends web-llm, compiled over the families' real vocabularies and fed the real
 * token ids of what each model writes, one token at a time as web-llm's sampler meets the mask: a
 * call's marker is one special token (`<tool_call>`, `<|python_tag|>`, `</think>`), and single tokens
 * span the grammar's own boundaries (`"}}\n` closes the arguments, the call object and starts the
 * end tag), which a one-character vocabulary never shows.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../../src/engine/types';
import { boundJsonWhitespace, type XGrammarLike } from '../../../src/engine/webllm/webllm-grammar';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { tokenizerOf } from '../../helpers/tokenizers';
import { request } from '../../helpers/webllm-fakes';
import { matchTokens, xgrammar } from '../../helpers/xgrammar';
import { clock, FAMILIES, weather } from './families';

const covered = FAMILIES.filter((f) => tokenizerOf(f.model));

/** The `response_format` the engine hands web-llm: planned, then its JSON whitespace bounded. */
async function formatFor(model: string, over: Partial<GenerateRequest>) {
  const { body } = planChatRequest(request({ model, ...over }), { vision: false });
  const xg = (await xgrammar()) as unknown as XGrammarLike;
  return (await boundJsonWhitespace(xg, body.response_format)) ?? {};
}

describe('the real vocabularies are covered', () => {
  it('Qwen2.5, Qwen3 and Llama 3.x', () => {
    expect(covered.map((f) => f.model.split('-q4')[0])).toEqual([
      'Qwen2.5-1.5B-Instruct',
      'Qwen3-0.6B',
      'Llama-3.2-1B-Instruct',
      'Llama-3-8B-Instruct',
    ]);
  });
});

describe.each(covered)('$model: its grammar, token by token', (family) => {
  const tokenizer = tokenizerOf(family.model);
  if (!tokenizer) throw new Error('covered families have a tokenizer');
  const think = family.think ?? '';
  const auto = () => formatFor(family.model, { tools: [weather, clock] });
  const required = () => formatFor(family.model, { tools: [weather, clock], toolChoice: 'required' });

  it('the call markers are single special tokens and some token spans a grammar boundary', () => {
    const tokens = tokenizer.encode(think + family.two).map((id) => tokenizer.decode([id]));
    for (const marker of ['<tool_call>', '<|python_tag|>', '</think>'])
      if ((think + family.two).includes(marker)) expect(tokens).toContain(marker);
    // One token closes the arguments and the call object (and, for `<tool_call>`, opens the end tag's line).
    expect(tokens.some((t) => t.startsWith('"}}'))).toBe(true);
  });

  it('accepts one call, two calls and prose under auto, each ending at the stop token', async () => {
    for (const text of [family.one, family.two, 'It is sunny in Paris.']) {
      const ids = tokenizer.encode(think + text);
      expect(await matchTokens(await auto(), tokenizer, think + text)).toEqual({
        accepted: ids.length,
        complete: true,
      });
    }
  });

  it('refuses, at the token where it goes wrong, arguments the schema forbids', async () => {
    const text = think + family.bad;
    const run = await matchTokens(await auto(), tokenizer, text);
    expect(run.complete).toBe(false);
    expect(run.accepted).toBeGreaterThan(0);
    expect(run.accepted).toBeLessThan(tokenizer.encode(text).length);
  });

  it('under required, refuses prose and accepts the call', async () => {
    expect((await matchTokens(await required(), tokenizer, `${think}It is sunny in Paris.`)).complete).toBe(
      false,
    );
    expect((await matchTokens(await required(), tokenizer, think + family.one)).complete).toBe(true);
  });

  it('holds a json_schema answer to its schema, token by token', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
      additionalProperties: false,
    };
    const format = await formatFor(family.model, {
      format: { type: 'json_schema', name: 'forecast', schema, strict: true },
    });
    expect((await matchTokens(format, tokenizer, `${think}{"city": "Paris", "days": 3}`)).complete).toBe(
      true,
    );
    expect((await matchTokens(format, tokenizer, `${think}{"city": "Paris", "days": "3"}`)).complete).toBe(
      false,
    );
    // A real token of nineteen spaces is one sampling step: the bounded whitespace masks it at once.
    const spaced = await matchTokens(
      format,
      tokenizer,
      `${think}{"city": "Paris",${' '.repeat(20)}"days": 3}`,
    );
    expect(spaced.complete).toBe(false);
  });
});
