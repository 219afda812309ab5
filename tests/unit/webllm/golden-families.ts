/**
 * The families with a native tool format whose web-llm prompt the goldens compare with the published
 * template, and the differences intab keeps on purpose, each stated where it shows.
 */
import { mistralCallId } from '../../../src/engine/tool-formats/mistral';
import type { ConvTemplateName } from '../../helpers/webllm-prompt';

export interface NativeGolden {
  model: string;
  conv: ConvTemplateName;
  /** The template's file in tests/fixtures/templates, without `.jinja`. */
  template: string;
  /** Template variables beyond messages and tools. */
  extra?: Record<string, unknown>;
  /** A tool-use template (NousResearch's), which the model's card prescribes only when tools are offered. */
  toolsOnly?: boolean;
  /** Reasoning goes to the template as a `thinking` chunk (Ministral 3, as llama.cpp hands it). */
  thinkingChunks?: boolean;
  /** Call ids as the template requires them (Mistral's nine characters). */
  callId?: (id: string) => string;
}

/**
 * A place where intab's prompt differs from the template's rendering on purpose: the template renders
 * `template` (exactly once) where intab sends `intab`, and nothing else differs; or the template
 * refuses the conversation (`refused`) and intab renders what the model writes.
 */
export interface Difference {
  model: RegExp;
  conversations: string[];
  why: string;
  template?: string;
  intab?: string;
  refused?: RegExp;
}

export const NATIVE: NativeGolden[] = [
  { model: 'Qwen3-0.6B-q4f16_1-MLC', conv: 'qwen3', template: 'Qwen-Qwen3-0.6B' },
  { model: 'Qwen3.5-0.8B-q4f16_1-MLC', conv: 'qwen3_5', template: 'Qwen3.5-4B' },
  { model: 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC', conv: 'qwen2', template: 'Qwen-Qwen2.5-7B-Instruct' },
  {
    model: 'Llama-3.1-8B-Instruct-q4f16_1-MLC',
    conv: 'llama-3_1',
    template: 'meta-llama-Llama-3.1-8B-Instruct',
    // The template's own date default ("26 Jul 2024") is left to it. Tools in the system block is
    // the template's non-default variant (`tools_in_user_message=false`), which intab keeps.
    extra: { tools_in_user_message: false },
  },
  {
    model: 'Llama-3.2-1B-Instruct-q4f16_1-MLC',
    conv: 'llama-3_1',
    template: 'meta-llama-Llama-3.2-3B-Instruct',
    // Today's date, as `strftime_now("%d %b %Y")` gives it on the day the goldens run (NOW).
    extra: { tools_in_user_message: false, date_string: '14 Mar 2025' },
  },
  {
    model: 'Hermes-3-Llama-3.1-8B-q4f16_1-MLC',
    conv: 'hermes3_llama-3_1',
    template: 'NousResearch-Hermes-3-Llama-3.1-8B-tool_use',
    toolsOnly: true,
  },
  {
    model: 'Hermes-2-Pro-Llama-3-8B-q4f16_1-MLC',
    conv: 'hermes2_pro_llama3',
    template: 'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use',
    toolsOnly: true,
  },
  {
    model: 'Mistral-7B-Instruct-v0.3-q4f16_1-MLC',
    conv: 'mistral_default',
    template: 'mistralai-Mistral-7B-Instruct-v0.3',
    extra: { eos_token: '</s>' },
    callId: mistralCallId,
  },
  {
    model: 'Ministral-3-3B-Reasoning-2512-q4f16_1-MLC',
    conv: 'ministral3_reasoning',
    template: 'mistralai-Ministral-3-14B-Reasoning-2512',
    extra: { eos_token: '</s>' },
    thinkingChunks: true,
  },
];

/** The conversations that end with tool results, so the reply header follows the tool turn. */
const ENDS_WITH_RESULTS = [
  'tools and tool history',
  'parallel calls',
  'prose and a call in one turn',
  'typed arguments, a result that is not JSON',
  'reasoning inside a tool loop',
  'arguments whose numbers JavaScript spells otherwise',
  'tool_choice none after a call',
  'tool_choice required after a call',
  'a named tool after another tool’s call',
];

export const DIFFERENCES: Difference[] = [
  {
    model: /^hermes-/i,
    conversations: ENDS_WITH_RESULTS,
    why: 'no newline after the last tool turn’s <|im_end|> in the template, one in intab’s',
    // NousResearch's tool-use template writes no newline after a tool turn's `<|im_end|>` (every other
    // turn has one, as does NousResearch's function-calling data); web-llm's separator writes it.
    template: '</tool_response><|im_end|><|im_start|>assistant\n',
    intab: '</tool_response><|im_end|>\n<|im_start|>assistant\n',
  },
  {
    model: /^hermes-/i,
    conversations: ['a tool loop, then another user turn'],
    why: 'the template moves the newline of a tool turn before its <|im_end|>, intab keeps it after',
    // A tool turn that is not the conversation's last ends `\n</tool_response>\n<|im_end|>` with no
    // newline after it in the template; intab ends it as every other turn, `<|im_end|>\n`.
    template: '</tool_response>\n<|im_end|><|im_start|>assistant\n',
    intab: '</tool_response><|im_end|>\n<|im_start|>assistant\n',
  },
  {
    model: /^llama-3\.[123]/i,
    conversations: ['parallel calls'],
    why: 'Meta’s template refuses parallel calls; intab writes them as the model does, joined by "; "',
    refused: /only supports single tool-calls/,
    intab:
      '<|start_header_id|>assistant<|end_header_id|>\n\n{"name": "get_weather", "parameters": {"city": "Paris"}}; ' +
      '{"name": "get_weather", "parameters": {"city": "Rome"}}<|eot_id|>',
  },
  {
    model: /^mistral-7b-instruct-v0\.3/i,
    conversations: [
      'tools and tool history',
      'prose and a call in one turn',
      'reasoning inside a tool loop',
      'tool_choice none after a call',
      'tool_choice required after a call',
      'a named tool after another tool’s call',
    ],
    why: 'the template drops the system text once tool results follow; intab keeps it in the last user turn',
    // The template writes the system text only into a user turn that is the last message; mistral_common
    // (Mistral's reference tokenizer, which the template mirrors) prepends it to the last user turn
    // wherever that turn is.
    template: '[INST] Weather in Paris?[/INST]',
    intab: '[INST] You are terse.\n\nWeather in Paris?[/INST]',
  },
  {
    model: /^mistral-7b-instruct-v0\.3/i,
    conversations: ['parallel calls'],
    why: 'the template drops the system text once tool results follow; intab keeps it in the last user turn',
    template: '[INST] Weather in Paris and Rome?[/INST]',
    intab: '[INST] You are terse.\n\nWeather in Paris and Rome?[/INST]',
  },
];
