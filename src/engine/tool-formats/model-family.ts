/**
 * What intab must know per model family that web-llm does not say: the native tool-call format,
 * where tool results go, and how the family marks its reasoning. Keyed on web-llm's model ids
 * (and self-hosted records named after the same families).
 */
import { hermesFormat } from './hermes';
import { llama3Format, llama31SystemHead, llama32SystemHead } from './llama3';
import { ministralFormat } from './ministral';
import { mistralFormat } from './mistral';
import { nousHermesFormat } from './nous-hermes';
import { phi4Format } from './phi4';
import { qwenXmlFormat } from './qwen-xml';
import type { ToolFormat } from './types';

export interface ReasoningMarkers {
  open: string;
  close: string;
  /**
   * The conversation template already wrote `open` (Qwen3.5's `assistant\n<think>`), or the model
   * may skip it (DeepSeek-R1 distills): the reply starts inside the block.
   */
  prefilled: boolean;
}

export interface ModelFamily {
  id: string;
  tools: ToolFormat;
  /**
   * 'tool' where web-llm's conversation template has a tool role that renders like the published
   * template (Llama 3.1's `ipython`, Hermes' `tool`, Ministral's `[TOOL_RESULTS]`); 'user' elsewhere,
   * since web-llm throws "Role is not supported" for a role its template lacks.
   */
  resultRole: 'user' | 'tool';
  /** Whether the tool section names the native format (false: taught a borrowed one). */
  nativeTools: boolean;
  reasoning: ReasoningMarkers | null;
  /** web-llm's `extra_body.enable_thinking: false` is honoured (it pre-fills an empty `<think>` block). */
  canDisableThinking: boolean;
  /**
   * Every reply opens with the think block (Qwen3 unless thinking is off, QwQ, the R1 distills,
   * Qwen3.5), so a grammar leaves that block free and constrains what follows it. Families that think
   * only when told to (Ministral's reasoning prompt, Gemma 4's `<|think|>`) are not counted.
   */
  alwaysThinks?: boolean;
  /**
   * What the family's template always writes at the head of the system block (Llama 3.1's
   * environment and date lines), before the tool section and the system text; absent for none.
   */
  systemHead?: (tools: boolean, now: Date) => string;
  /**
   * Put before the content of an assistant turn that comes after the last user message (a tool-use
   * loop): Qwen3.5's template writes such turns with their (empty) think block.
   */
  assistantPrefix?: string;
  /**
   * The template writes the system text and its separator before the tool section even when the
   * request has none (QwQ: `<|im_start|>system\n` + '' + `\n\n# Tools…`).
   */
  toolsAfterEmptySystem?: boolean;
  /** The system text the family's template writes when the request has none (Qwen2.5, SmolLM2). */
  defaultSystem?: string;
  /**
   * The template has no system turn: the system text heads the last user message, followed by a
   * blank line (Mistral's v3 tokenizer, as mistral_common encodes it).
   */
  systemInLastUser?: boolean;
  /**
   * The template trims each user message (Meta's Llama 3.x `| trim`, Qwen3.5's
   * `render_content(…)|trim`, Gemma's `| trim`): intab sends them trimmed.
   */
  trimText?: boolean;
  /**
   * How the template writes the system text where it does not write it as given: trimmed (Llama 3.x,
   * Qwen3.5), or only its start (Gemma 2, whose folded first user turn is trimmed as a whole).
   */
  systemText?: (text: string) => string;
  /** How the template writes an assistant's text (Mistral v3: a space, then the text trimmed). */
  assistantText?: (text: string) => string;
  /**
   * The template writes only the calls of an assistant turn that has both (Mistral v3, Hermes'
   * tool-use template, Llama 3.1's): its prose is dropped.
   */
  callsOnly?: boolean;
  /**
   * What joins an assistant turn's text to the calls after it: a newline unless the template writes
   * more (Qwen3.5: a blank line).
   */
  textBeforeCalls?: string;
  /**
   * Consecutive tool results go in one tool turn, one `<tool_response>` block each (Hermes'
   * `<|im_start|>tool`), not a turn per result (Llama's `ipython`, Ministral's `[TOOL_RESULTS]`).
   */
  groupResults?: boolean;
  /**
   * The template writes an assistant turn's reasoning back, inside the family's markers, for turns
   * after the last user message (Qwen3's and Qwen3.5's tool loop: `<think>\n…\n</think>\n\n` before
   * the text and calls).
   */
  reasoningInLoop?: boolean;
  /**
   * How the template writes a loop turn's reasoning inside the block: trimmed (Qwen3.5's `|trim`,
   * the default), or with only its newlines stripped (Qwen3's `strip('\n')`).
   */
  loopReasoningText?: (reasoning: string) => string;
  /**
   * The template writes every past assistant turn's reasoning back, as the model wrote it: the
   * family's markers around it, right before the turn's text and calls (Ministral 3's `thinking`
   * chunks, which llama.cpp makes of `reasoning_content`: `[THINK]…[/THINK]text`).
   */
  reasoningInHistory?: boolean;
  /**
   * wllama: whether the GGUF's own template writes the tools and an assistant turn's calls, read from
   * its text (a GGUF's template may predate its family's tools); absent: as the family's published
   * template does.
   */
  templateWritesTools?: boolean;
  /**
   * wllama: template variables that keep llama.cpp's rendering the published one (`date_string`,
   * which llama.cpp otherwise sets to today), read from the GGUF's template.
   */
  templateKwargs?: Record<string, unknown>;
}

/** The Math models' default system text, as Qwen2-Math's and Qwen2.5-Math's templates write it. */
const MATH_SYSTEM = 'Please reason step by step, and put your final answer within \\boxed{}.';

/** Meta's Llama 3.x templates write every message's text `| trim`. */
const META_TEXT = {
  trimText: true,
  systemText: (text: string) => text.trim(),
  assistantText: (text: string) => text.trim(),
};

/** Gemma's templates write each turn's text `| trim`. */
const GEMMA_TEXT = { trimText: true, assistantText: (text: string) => text.trim() };

const THINK: ReasoningMarkers = { open: '<think>', close: '</think>', prefilled: false };

/**
 * Llama 3.1 / 3.3 (and 3.2 with its own date): tools in the system block, which is the template's
 * `tools_in_user_message=false` variant, not its default (tools in the first user turn); intab keeps
 * it so that the tool list stays in the system block the KV cache reuses from turn to turn.
 */
const LLAMA31: ModelFamily = {
  ...family('llama3.1', llama3Format, 'tool', true),
  ...META_TEXT,
  systemHead: llama31SystemHead,
  callsOnly: true,
};

const FAMILIES: Array<[RegExp, ModelFamily]> = [
  [
    /^qwen3\.5/i,
    {
      id: 'qwen3.5',
      tools: qwenXmlFormat,
      resultRole: 'user',
      nativeTools: true,
      reasoning: { ...THINK, prefilled: true },
      // The template's `enable_thinking=false` writes `<think>\n\n</think>\n\n` after the header, as
      // web-llm's pre-fill does once conv_config takes the `<think>` out of the assistant role.
      canDisableThinking: true,
      alwaysThinks: true,
      // A turn after the last user message without reasoning still gets its (empty) block.
      assistantPrefix: '<think>\n\n</think>\n\n',
      reasoningInLoop: true,
      // The template trims each message's content and puts a blank line between text and calls.
      assistantText: (text) => text.trim(),
      trimText: true,
      systemText: (text) => text.trim(),
      textBeforeCalls: '\n\n',
    },
  ],
  [
    /^qwen3/i,
    {
      id: 'qwen3',
      tools: hermesFormat,
      resultRole: 'user',
      nativeTools: true,
      reasoning: THINK,
      canDisableThinking: true,
      alwaysThinks: true,
      reasoningInLoop: true,
      loopReasoningText: (reasoning) => reasoning.replace(/^\n+|\n+$/g, ''),
    },
  ],
  // QwQ's template ends the prompt with `<|im_start|>assistant\n<think>\n`: the reply starts inside
  // the block, so its reasoning is the text before `</think>` and a grammar begins inside it.
  [
    /^qwq/i,
    {
      ...family('qwq', hermesFormat, 'user', true),
      toolsAfterEmptySystem: true,
      reasoning: { ...THINK, prefilled: true },
      alwaysThinks: true,
    },
  ],
  // Qwen2-Math's and Qwen2.5-Math's templates open with their own default system text; only
  // Qwen2.5-Math's has a tool format (Qwen2.5's).
  [/^qwen2-math/i, { ...family('qwen2-math', hermesFormat, 'user', false), defaultSystem: MATH_SYSTEM }],
  [/^qwen2\.5-math/i, { ...family('qwen2.5-math', hermesFormat, 'user', true), defaultSystem: MATH_SYSTEM }],
  // Qwen2-Instruct's template has no tools: the `<tool_call>` format is taught.
  [
    /^qwen2-/i,
    { ...family('qwen2', hermesFormat, 'user', false), defaultSystem: 'You are a helpful assistant.' },
  ],
  [
    /^qwen2/i,
    {
      ...family('qwen2.5', hermesFormat, 'user', true),
      defaultSystem: 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.',
    },
  ],
  [
    /^smollm2/i,
    {
      ...family('smollm2', hermesFormat, 'user', false),
      defaultSystem: 'You are a helpful AI assistant named SmolLM, trained by Hugging Face',
    },
  ],
  // NousResearch's tool-use template (Hermes 2 Pro, Mistral and Llama 3, and Hermes 3) writes a
  // turn's calls without its text and all consecutive results in one `tool` turn; web-llm's
  // template for Hermes 2 Pro Mistral lacks the role, which conv_config adds.
  [/^hermes-/i, { ...family('hermes', nousHermesFormat, 'tool', true), callsOnly: true, groupResults: true }],
  [/^phi-4-mini/i, family('phi4-mini', phi4Format, 'user', true)],
  // Gemma 2's and 3's templates trim every turn's text, but not Gemma 3's system text, which heads
  // the first user turn as given; Gemma 2's heads it inside the text that is trimmed.
  [
    /^gemma-?2/i,
    { ...family('gemma2', hermesFormat, 'user', false), ...GEMMA_TEXT, systemText: (t) => t.trimStart() },
  ],
  [/^gemma-?3/i, { ...family('gemma3', hermesFormat, 'user', false), ...GEMMA_TEXT }],
  // Gemma 4 thinks in a `thought` channel; its tool tokens need a template web-llm lacks.
  [
    /^gemma-4/i,
    {
      ...family('gemma4', hermesFormat, 'user', false),
      reasoning: { open: '<|channel>thought', close: '<channel|>', prefilled: false },
    },
  ],
  [
    /^deepseek-r1/i,
    {
      ...family('deepseek-r1', hermesFormat, 'user', false),
      reasoning: { ...THINK, prefilled: true },
      alwaysThinks: true,
    },
  ],
  // Meta's templates write a turn's call without its text, and trim every message's text. Llama
  // 3.2's dates the system block today, 3.1's and 3.3's with their literal default.
  [/^llama-3\.2/i, { ...LLAMA31, systemHead: llama32SystemHead }],
  [/^llama-3\.[13]/i, LLAMA31],
  [/^llama-3-/i, { ...family('llama3', llama3Format, 'user', true), ...META_TEXT }],
  // Mistral's v3 template: results as bare `[TOOL_RESULTS]` turns (web-llm's tool role, corrected
  // by conv_config), the system text in the last user turn, ` text</s>` for an assistant's text.
  [
    /^mistral-7b-instruct-v0\.3/i,
    {
      ...family('mistral', mistralFormat, 'tool', true),
      systemInLastUser: true,
      assistantText: (text) => ` ${text.trim()}`,
      callsOnly: true,
    },
  ],
  [
    /^ministral-3/i,
    {
      id: 'ministral3',
      tools: ministralFormat,
      resultRole: 'tool',
      nativeTools: true,
      reasoning: { open: '[THINK]', close: '[/THINK]', prefilled: false },
      canDisableThinking: false,
      reasoningInHistory: true,
      // The template writes `[TOOL_CALLS]` right after the turn's text, with nothing between.
      textBeforeCalls: '',
    },
  ],
];

const FALLBACK = family('other', hermesFormat, 'user', false);

/**
 * The family of a web-llm model id; families without a native tool format get the `<tool_call>`
 * format, taught by prompt and held by the structural tag.
 *
 * @example
 * familyOf('Llama-3.2-1B-Instruct-q4f16_1-MLC').tools.id; // 'llama3-json'
 */
export function familyOf(modelId: string): ModelFamily {
  return FAMILIES.find(([re]) => re.test(modelId))?.[1] ?? FALLBACK;
}

function family(
  id: string,
  tools: ToolFormat,
  resultRole: 'user' | 'tool',
  nativeTools: boolean,
): ModelFamily {
  return { id, tools, resultRole, nativeTools, reasoning: null, canDisableThinking: false };
}
