/**
 * Real tokenizers of two web-llm families, small enough for every `npm ci`: Llama 3's from
 * `llama3-tokenizer-js` (its vocabulary and merges baked in), Qwen3's rebuilt by `@lenml/tokenizers`
 * from a compact copy of Qwen's `tokenizer.json` (tests/fixtures/tokenizers, written by
 * scripts/extract-qwen-tokenizer.mjs). Both encode special tokens written in the text, as web-llm's
 * tokenizer does, and give the raw byte-level token table web-llm hands xgrammar.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { TokenizerLoader } from '@lenml/tokenizers';
import llama3 from 'llama3-tokenizer-js';

export interface RealTokenizer {
  encode(text: string): number[];
  decode(ids: number[]): string;
  /** Every token as the tokenizer stores it (byte-level: `Ġ` for a space), by id. */
  vocab: string[];
  /** The ids that end a reply (`<|im_end|>`, `<|eot_id|>`, …). */
  stopIds: number[];
  /**
   * How xgrammar reads `vocab` (mlc-chat-config's `tokenizer_info.token_postproc_method`):
   * `byte_level` (`Ġ` for a space; the default) or `byte_fallback` (SentencePiece: `▁`, `<0x0A>`).
   */
  postproc?: 'byte_level' | 'byte_fallback';
}

interface CompactTokenizerJson {
  added_tokens: Array<{ id: number; content: string }>;
  model: { vocab: string[]; merges: string[] } & Record<string, unknown>;
}

let qwenTokenizer: RealTokenizer | null = null;
let llamaTokenizer: RealTokenizer | null = null;

/**
 * Qwen3's tokenizer (Qwen2.5, QwQ, Qwen3 and the R1 Qwen distills share its byte-level BPE).
 *
 * @example
 * qwen3().encode('<tool_call>'); // [151657]
 */
export function qwen3(): RealTokenizer {
  if (qwenTokenizer) return qwenTokenizer;
  const file = new URL('../fixtures/tokenizers/qwen3-tokenizer.json.gz', import.meta.url);
  const json = JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as CompactTokenizerJson;
  const vocab = [...json.model.vocab];
  for (const t of json.added_tokens) vocab[t.id] = t.content;
  const tokenizer = TokenizerLoader.fromPreTrained({
    tokenizerJSON: {
      ...json,
      model: { ...json.model, vocab: Object.fromEntries(json.model.vocab.map((t, id) => [t, id])) },
    } as never,
    tokenizerConfig: {
      tokenizer_class: 'Qwen2Tokenizer',
      add_bos_token: false,
      add_prefix_space: false,
      bos_token: null,
      eos_token: '<|im_end|>',
      pad_token: '<|endoftext|>',
      unk_token: null,
      clean_up_tokenization_spaces: false,
      split_special_tokens: false,
      errors: 'replace',
      model_max_length: 131072,
    } as never,
  });
  qwenTokenizer = {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }),
    decode: (ids) => tokenizer.decode(ids),
    vocab,
    stopIds: [vocab.indexOf('<|im_end|>'), vocab.indexOf('<|endoftext|>')],
  };
  return qwenTokenizer;
}

/**
 * Llama 3's tokenizer (Llama 3, 3.1, 3.2 and Hermes 3 / Hermes 2 Pro Llama share it).
 *
 * @example
 * llama3Tokenizer().encode('<|eot_id|>'); // [128009]
 */
export function llama3Tokenizer(): RealTokenizer {
  llamaTokenizer ??= {
    encode: (text) => llama3.encode(text, { bos: false, eos: false }),
    decode: (ids) => llama3.decode(ids),
    vocab: llama3.vocabById,
    stopIds: [llama3.getSpecialTokenId('<|eot_id|>'), llama3.getSpecialTokenId('<|eom_id|>')],
  };
  return llamaTokenizer;
}

/**
 * The real tokenizer a web-llm model was trained with, where the tests have it: Qwen2.5 and Qwen3
 * (one vocabulary; Qwen3 adds its think tokens) and Llama 3.x. Null for the rest (the Hermes
 * Llamas give reserved ids to their own markers, which Llama 3's table lacks).
 *
 * @example
 * tokenizerOf('Qwen3-0.6B-q4f16_1-MLC') === qwen3(); // true
 */
export function tokenizerOf(model: string): RealTokenizer | null {
  if (/^qwen(2\.5|3-)/i.test(model)) return qwen3();
  if (/^llama-3/i.test(model)) return llama3Tokenizer();
  return null;
}
