/**
 * Parsing with the families' real tokenizers (Qwen's and Llama 3's vocabularies,
 * tests/helpers/tokenizers.ts), streamed as web-llm streams: after each token it decodes all output
 * ids and sends what was added, holding back an incomplete UTF-8 character. Token boundaries then fall where they
 * really do, across markers and JSON (`"}\n`, `>{"`, `\n\n<`), not one character at a time.
 */
import { describe, expect, it } from 'vitest';
import type { EngineChunk } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { callsOf } from '../../helpers/engine-chunks';
import { llama3Tokenizer, qwen3, type RealTokenizer as Tokenizer } from '../../helpers/tokenizers';
import { request } from '../../helpers/webllm-fakes';
import { clock, FAMILIES, weather } from './families';

const QWEN = qwen3();
const LLAMA3 = llama3Tokenizer();

/** The vocabulary each web-llm family was trained with, where a package ships it. */
function vocabularyOf(model: string): Tokenizer | null {
  if (/^(qwen|qwq|deepseek-r1-distill-qwen)/i.test(model)) return QWEN;
  if (/^(llama-3|hermes-3|hermes-2-pro-llama)/i.test(model)) return LLAMA3;
  return null;
}

/** web-llm's deltas for `text`: decode everything so far, send the new tail (`makeStreamDeltaChunk`). */
function webllmDeltas(tokenizer: Tokenizer, text: string): string[] {
  const ids = tokenizer.encode(text);
  const deltas: string[] = [];
  let sent = 0;
  for (let k = 1; k <= ids.length; k++) {
    const message = tokenizer.decode(ids.slice(0, k));
    if (message.endsWith('\uFFFD')) continue;
    deltas.push(message.slice(sent));
    sent = message.length;
  }
  return deltas;
}

const PARIS = { name: 'get_weather', arguments: '{"city":"Paris"}' };
const ROME = { name: 'get_weather', arguments: '{"city":"Rome"}' };

describe('the tokenizers are the families’ own', () => {
  it('Qwen3: known ids for text and special tokens, and a round trip', () => {
    expect(QWEN.encode('Hello world')).toEqual([9707, 1879]);
    expect(QWEN.encode('<tool_call>\n<|im_end|>')).toEqual([151657, 198, 151645]);
    expect(QWEN.vocab[151657]).toBe('<tool_call>');
    expect(QWEN.decode(QWEN.encode('Überprüfung: 75001 €'))).toBe('Überprüfung: 75001 €');
  });

  it('Llama 3: known ids for text and special tokens, and a round trip', () => {
    expect(LLAMA3.encode('Hello world')).toEqual([9906, 1917]);
    expect(LLAMA3.encode('<|python_tag|><|eot_id|>')).toEqual([128010, 128009]);
    expect(LLAMA3.vocab[1917]).toBe('Ġworld');
    expect(LLAMA3.decode(LLAMA3.encode('Überprüfung: 75001 €'))).toBe('Überprüfung: 75001 €');
  });
});

const covered = FAMILIES.filter((f) => vocabularyOf(f.model));

describe.each(covered)('$model, streamed at its own tokenizer’s boundaries', (family) => {
  const tokenizer = vocabularyOf(family.model) as Tokenizer;
  const plan = planChatRequest(request({ model: family.model, tools: [weather, clock] }), { vision: false });

  function run(text: string): EngineChunk[] {
    const reply = new ReplyAssembler(plan.reply);
    const out: EngineChunk[] = [];
    for (const delta of webllmDeltas(tokenizer, text)) out.push(...reply.push(delta));
    out.push(...reply.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
    return out;
  }

  it('the boundaries are real: some token spans a marker and its neighbour', () => {
    const deltas = webllmDeltas(tokenizer, family.two);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe(family.two);
  });

  it('one call and two calls parse, after the think block where the family thinks', () => {
    const think = family.think ?? '';
    expect(callsOf(run(think + family.one))).toEqual([PARIS]);
    expect(callsOf(run(think + family.two))).toEqual([PARIS, ROME]);
    const text = run(`${think}It is sunny in Paris.`).flatMap((c) => (c.type === 'text' ? [c.delta] : []));
    expect(text.join('')).toBe('It is sunny in Paris.');
  });
});
