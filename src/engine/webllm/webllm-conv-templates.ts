/**
 * Corrections to web-llm's conversation templates (mlc-llm's, shipped in each model's
 * mlc-chat-config.json), passed as `conv_config` in `reload`'s chat options so that the prompt is the
 * one each family's published chat template renders. web-llm merges `conv_config` over the model's
 * `conv_template` field by field, so stop tokens and BOS ids stay the model's own.
 */
import type { ChatOptions } from '@mlc-ai/web-llm';

/** web-llm's `Partial<ConvTemplateConfig>`, which its index does not export by name. */
type ConvConfig = NonNullable<ChatOptions['conv_config']>;

/** The published templates write no system turn when the request has none (web-llm adds a default). */
const NO_DEFAULT_SYSTEM: ConvConfig = { system_message: '', render_empty_system_message: false };

/**
 * Gemma has no system role: Gemma 3's template puts the system text at the head of the first user
 * turn, followed by a blank line (Gemma 2's refuses it; the same folding is the usual answer). web-llm
 * writes the system text outside any turn, so the turn is opened by the system template instead and
 * the first user message carries no role of its own.
 */
const GEMMA: ConvConfig = {
  ...NO_DEFAULT_SYSTEM,
  system_template: '<start_of_turn>user\n{system_message}\n\n',
  add_role_after_system_message: false,
};

const CORRECTIONS: Array<[RegExp, ConvConfig]> = [
  // web-llm's Qwen3.5 role string ends in `<think>`, which past turns before the last user message
  // must not carry: the reply header opens the block instead (`role_empty_sep` is the header's
  // alone), and turns after that message carry their block in the content. With thinking off,
  // web-llm's pre-fill (`role_content_sep`, then `<think>\n\n</think>\n\n`) is the template's
  // `enable_thinking=false`. (The template has no tool role, as web-llm's has none: results go
  // back as user turns.)
  [
    /^qwen3\.5/i,
    {
      ...NO_DEFAULT_SYSTEM,
      roles: { user: '<|im_start|>user', assistant: '<|im_start|>assistant' } as ConvConfig['roles'],
      role_empty_sep: '\n<think>\n',
    },
  ],
  // QwQ's template opens every reply's think block (`<|im_start|>assistant\n<think>\n`).
  [/^qwq/i, { ...NO_DEFAULT_SYSTEM, role_empty_sep: '\n<think>\n' }],
  [/^qwen3/i, NO_DEFAULT_SYSTEM],
  // NousResearch's tool-use templates write no default persona, and results in a `tool` turn, a
  // role web-llm's template for Hermes 2 Pro Mistral (open_hermes_mistral) lacks.
  [
    /^hermes-2-pro-mistral/i,
    {
      ...NO_DEFAULT_SYSTEM,
      roles: {
        user: '<|im_start|>user',
        assistant: '<|im_start|>assistant',
        tool: '<|im_start|>tool',
      } as ConvConfig['roles'],
    },
  ],
  [/^hermes-/i, NO_DEFAULT_SYSTEM],
  // Phi-3.5 closes the system turn with `<|end|>` like every other; web-llm's template does not.
  [/^phi-3/i, { ...NO_DEFAULT_SYSTEM, system_template: '<|system|>\n{system_message}<|end|>\n' }],
  // Phi-4-mini's turns have no newline after the role nor after `<|end|>`.
  [
    /^phi-4-mini/i,
    {
      ...NO_DEFAULT_SYSTEM,
      system_template: '<|system|>{system_message}<|end|>',
      role_content_sep: '',
      role_empty_sep: '',
      seps: ['<|end|>'],
    },
  ],
  [/^gemma-?[23]/i, GEMMA],
  // The R1 distills' template writes the system text bare after BOS, with no default (web-llm's
  // system template holds the BOS as text, so an empty system message must still render), and opens
  // the reply with `<think>\n`.
  [/^deepseek-r1/i, { system_message: '', role_empty_sep: '<think>\n' }],
  [/^llama-3-/i, NO_DEFAULT_SYSTEM],
  // Mistral's v3 template: `[INST] text[/INST]` (the system text in the last user turn, written by
  // intab with the `[INST] ` opener, since `[AVAILABLE_TOOLS]` goes before it), ` text</s>` or
  // `[TOOL_CALLS] […]</s>` for the assistant, bare `[TOOL_RESULTS]` turns; web-llm's puts a default
  // system text and the tools inside `[INST]` and closes no assistant turn with `</s>`.
  [
    /^mistral-7b-instruct-v0\.3/i,
    {
      ...NO_DEFAULT_SYSTEM,
      system_template: '{system_message}',
      roles: { user: '', assistant: '', tool: '' } as ConvConfig['roles'],
      role_templates: {
        user: '{user_message}[/INST]',
        assistant: '{assistant_message}</s>',
        tool: '{tool_message}',
      } as ConvConfig['role_templates'],
      role_content_sep: '',
      role_empty_sep: '',
      seps: [''],
    },
  ],
  // web-llm fills only `{system_message}`: its `{function_string}` would reach the model literally.
  // `[AVAILABLE_TOOLS]` follows the system block, ahead of the first `[INST]`, so intab writes each
  // user turn's `[INST]` opener (the section goes before the first) and the role template closes it.
  [
    /^ministral-3/i,
    {
      system_template: '[SYSTEM_PROMPT]{system_message}[/SYSTEM_PROMPT]',
      role_templates: {
        user: '{user_message}[/INST]',
        assistant: '{assistant_message}</s>',
        tool: '[TOOL_RESULTS]{tool_message}[/TOOL_RESULTS]',
      } as ConvConfig['role_templates'],
    },
  ],
];

/**
 * What opens each user turn where the corrected template leaves it to intab (Mistral's `[INST]`,
 * which the tool section must precede); '' elsewhere.
 *
 * @example
 * userTurnOpener('Mistral-7B-Instruct-v0.3-q4f16_1-MLC'); // '[INST] '
 * userTurnOpener('Ministral-3-3B-Reasoning-2512-q4f16_1-MLC'); // '[INST]'
 */
export function userTurnOpener(modelId: string): string {
  if (/^mistral-7b-instruct-v0\.3/i.test(modelId)) return '[INST] ';
  return /^ministral-3/i.test(modelId) ? '[INST]' : '';
}

/**
 * The `conv_config` correcting `modelId`'s web-llm conversation template; undefined where it needs none.
 *
 * @example
 * await mlc.reload(id, { conv_config: convConfigFor(id) });
 */
export function convConfigFor(modelId: string): ConvConfig | undefined {
  return CORRECTIONS.find(([re]) => re.test(modelId))?.[1];
}
