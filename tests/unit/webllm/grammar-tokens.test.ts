/**
 * The grammars intab sends web-llm, compiled over the families' real vocabularies and fed the real
 * token ids of what each model writes, one token at a time as web-llm's sampler meets the mask: a
 * call's marker is one special token (`<tool_call>`, `<|python_tag|>`, `</think>`), and single tokens
 * span the grammar's own boundaries (`"}}\n` closes the arguments, the call object and starts the
 * end tag), which a one-character vocabulary never shows.
 */
import { describe, expect, it } from 'vitest';
import { grammarWalks } from '../../helpers/grammar-walks';
import { tokenizerOf } from '../../helpers/tokenizers';
import { clock, FAMILIES, weather } from './families';

const covered = FAMILIES.filter((f) => tokenizerOf(f.model));

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
  const walks = grammarWalks(family, [weather, clock], () => tokenizer);

  it('the call markers are single special tokens and some token spans a grammar boundary', () => {
    const tokens = tokenizer.encode(think + family.two).map((id) => tokenizer.decode([id]));
    for (const marker of ['<tool_call>', '<|python_tag|>', '</think>'])
      if ((think + family.two).includes(marker)) expect(tokens).toContain(marker);
    // One token closes the arguments and the call object (and, for `<tool_call>`, opens the end tag's line).
    expect(tokens.some((t) => t.startsWith('"}}'))).toBe(true);
  });

  it(
    'accepts one call, two calls and prose under auto, each ending at the stop token',
    walks.autoAcceptsCallsAndProse,
  );

  it('refuses, at the token where it goes wrong, arguments the schema forbids', walks.refusesBrokenArguments);

  it('under required, refuses prose and accepts the call', walks.requiredRefusesProse);

  it('holds a json_schema answer to its schema, token by token', walks.jsonSchemaHeld);
});
