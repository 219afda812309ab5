/**
 * Token counts for `countTokens`: exact per message with the loaded model's tokenizer, estimated
 * without one.
 */

import type { ChatMessage, FunctionToolSpec } from './types';
import { assistantText } from './webllm-messages';
import { buildToolPrompt } from './webllm-tool-prompt';

/** Something that turns text into token ids (web-tokenizers' `Tokenizer`). */
export interface TextEncoderLike {
  encode(text: string): ArrayLike<number>;
}

/** Role markers and separators a chat template adds per message (ChatML: `<|im_start|>role\n…<|im_end|>\n`). */
const TOKENS_PER_MESSAGE = 4;
/** Phi-3.5-vision, web-llm's vision model, spends about this many tokens per image. */
const TOKENS_PER_IMAGE = 768;
/** The usual ratio of English text and JSON for BPE vocabularies of 32k–150k tokens. */
const CHARS_PER_TOKEN = 4;

/**
 * Counts the tokens `messages` and `tools` take, as the engine would prompt them: tool calls and
 * results rendered as text, plus the tool prompt. Template markers are estimated per message.
 *
 * @example
 * countChatTokens([{ role: 'user', content: 'Hi' }], [], tokenizer); // 1 + 4
 */
export function countChatTokens(
  messages: ChatMessage[],
  tools: FunctionToolSpec[],
  encoder: TextEncoderLike | null,
): number {
  const count = (text: string) =>
    text === '' ? 0 : encoder ? encoder.encode(text).length : Math.ceil(text.length / CHARS_PER_TOKEN);
  let total = tools.length > 0 ? count(buildToolPrompt(tools, 'auto', true)) + TOKENS_PER_MESSAGE : 0;
  for (const m of messages) {
    total += TOKENS_PER_MESSAGE;
    if (m.role === 'assistant') total += count(assistantText(m.content, m.tool_calls));
    else if (m.role === 'tool')
      total += count(`Tool result for ${m.name} (call ${m.tool_call_id}):\n${m.content}`);
    else if (typeof m.content === 'string') total += count(m.content);
    else {
      for (const part of m.content) total += part.type === 'text' ? count(part.text) : TOKENS_PER_IMAGE;
    }
  }
  return total;
}

/**
 * The tokenizer of a model loaded in an MLCEngine, or null. web-llm 0.2.86 has no public tokenizer
 * API: the pipeline's `tokenizer` sits behind TypeScript-only `private` fields
 * (`loadedModelIdToPipeline`), so this reads them defensively and the caller falls back to an
 * estimate when a web-llm upgrade moves them.
 *
 * @example
 * const tok = loadedTokenizer(mlc, 'Qwen3-0.6B-q4f16_1-MLC');
 */
export function loadedTokenizer(engine: unknown, modelId: string): TextEncoderLike | null {
  const pipelines = (engine as { loadedModelIdToPipeline?: unknown }).loadedModelIdToPipeline;
  if (!(pipelines instanceof Map)) return null;
  const tokenizer = (pipelines.get(modelId) as { tokenizer?: unknown } | undefined)?.tokenizer;
  if (typeof tokenizer !== 'object' || tokenizer === null) return null;
  return typeof (tokenizer as TextEncoderLike).encode === 'function' ? (tokenizer as TextEncoderLike) : null;
}
