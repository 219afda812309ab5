/**
 * Token counts for `countTokens`: the messages rendered exactly as a generation would send them
 * (tool calls and results in the family's format, the tool section included), counted with the
 * loaded model's tokenizer, or estimated without one.
 */

import { familyOf } from '../tool-formats/model-family';
import { planToolsAndThinking } from '../tool-formats/request-plan';
import type { ChatMessage, FunctionToolSpec, PromptShape } from '../types';
import { promptMessages } from './webllm-request';

/** Something that turns text into token ids (web-tokenizers' `Tokenizer`). */
export interface TextEncoderLike {
  encode(text: string): ArrayLike<number>;
}

/** Role markers and separators a chat template adds per message (ChatML: `<|im_start|>role\n…<|im_end|>\n`). */
const TOKENS_PER_MESSAGE = 4;
/** Phi-3.5-vision, web-llm's vision model, spends about this many tokens per image. */
const TOKENS_PER_IMAGE = 768;
/** The usual ratio of English text and JSON for BPE vocabularies of 32k–150k tokens. */
export const CHARS_PER_TOKEN = 4;

const DEFAULT_SHAPE: PromptShape = { toolChoice: 'auto', format: { type: 'text' }, reasoningEffort: null };

/**
 * Counts the tokens of the prompt a generation of `modelId` sends for `messages`, `tools` and the
 * rest of the request (`shape`: every tool whatever its choice, the JSON instruction of its format,
 * the empty think block web-llm pre-fills when its effort turns thinking off). Template markers
 * are estimated per message; text is exact with a tokenizer.
 *
 * @example
 * countChatTokens('Qwen3-0.6B-q4f16_1-MLC', [{ role: 'user', content: 'Hi' }], [], tokenizer); // 1 + 4
 */
export function countChatTokens(
  modelId: string,
  messages: ChatMessage[],
  tools: FunctionToolSpec[],
  encoder: TextEncoderLike | null,
  shape: PromptShape = DEFAULT_SHAPE,
): number {
  const count = (text: string) =>
    text === '' ? 0 : encoder ? encoder.encode(text).length : Math.ceil(text.length / CHARS_PER_TOKEN);
  const family = familyOf(modelId);
  const req = { messages, tools, model: modelId, ...shape };
  const rendered = promptMessages(req, family, { vision: true, anyLastTurn: true });
  const { disableThinking } = planToolsAndThinking(req, family);
  const markers = family.reasoning;
  // web-llm pre-fills `<think>\n\n</think>\n\n` after the reply header (see webllm-prompt's
  // `appendEmptyThinkingReplyHeader`), which the prompt then holds.
  const prefill = disableThinking && markers ? count(`${markers.open}\n\n${markers.close}\n\n`) : 0;
  let total = prefill;
  for (const m of rendered) {
    total += TOKENS_PER_MESSAGE;
    if (typeof m.content === 'string') total += count(m.content);
    else if (Array.isArray(m.content)) {
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
  const tokenizer = (loadedPipeline(engine, modelId) as { tokenizer?: unknown } | null)?.tokenizer;
  if (typeof tokenizer !== 'object' || tokenizer === null) return null;
  return typeof (tokenizer as TextEncoderLike).encode === 'function' ? (tokenizer as TextEncoderLike) : null;
}

/**
 * How many tokens the model's KV cache held when its first output token was sampled: the whole
 * prompt, including the part web-llm reused from the previous turn (its own `prompt_tokens` counts
 * only what it prefilled this turn). Null when the private field is not there.
 *
 * @example
 * const promptTokens = filledContext(mlc, modelId) ?? usage.prompt_tokens;
 */
export function filledContext(engine: unknown, modelId: string): number | null {
  const filled = (loadedPipeline(engine, modelId) as { filledKVCacheLength?: unknown } | null)
    ?.filledKVCacheLength;
  return typeof filled === 'number' && Number.isFinite(filled) && filled > 0 ? filled : null;
}

/**
 * Whether web-llm still holds `modelId`'s pipeline; true when that cannot be told (the private
 * field moved), so only a known unload forces a reload.
 *
 * @example
 * if (!isPipelineLoaded(mlc, id)) await engine.load(id);
 */
export function isPipelineLoaded(engine: unknown, modelId: string): boolean {
  const pipelines = (engine as { loadedModelIdToPipeline?: unknown } | null)?.loadedModelIdToPipeline;
  return !(pipelines instanceof Map) || pipelines.has(modelId);
}

function loadedPipeline(engine: unknown, modelId: string): unknown {
  const pipelines = (engine as { loadedModelIdToPipeline?: unknown } | null)?.loadedModelIdToPipeline;
  if (!(pipelines instanceof Map)) return null;
  return pipelines.get(modelId) ?? null;
}
