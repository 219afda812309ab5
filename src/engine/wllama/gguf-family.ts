/**
 * Which model family a GGUF belongs to, so tools are taught and parsed in the family's native format
 * and reasoning is split off its own way. A GGUF names no family, but its chat template is the
 * family's fingerprint (its special tokens and tool markup); the model's name is the fallback.
 */
import { familyOf, type ModelFamily } from '../tool-formats/model-family';

/** Template fingerprints, most specific first, each mapped to a model id `familyOf` recognises. */
const FINGERPRINTS: Array<[test: (template: string) => boolean, familyId: string]> = [
  [(t) => t.includes('<|im_start|>') && t.includes('<function='), 'Qwen3.5'],
  // NousResearch's tool_use template (Hermes 2 Pro, Hermes 3) is ChatML with `<tool_call>` like
  // Qwen2.5's, but sends results in a `tool` turn; its system sentence is its own.
  [
    (t) =>
      t.includes('<|im_start|>') &&
      t.includes('<tool_call>') &&
      t.includes('You are a function calling AI model'),
    'Hermes-3',
  ],
  // QwQ's template has `<tool_call>` and `<think>` like Qwen3's, but no `reasoning_content` (it
  // opens every reply's think block itself and drops past ones): checked first, or it reads as Qwen3.
  [
    (t) =>
      t.includes('<|im_start|>') &&
      t.includes('<tool_call>') &&
      t.includes('<think>') &&
      !t.includes('reasoning_content'),
    'QwQ',
  ],
  [(t) => t.includes('<|im_start|>') && t.includes('<tool_call>') && t.includes('<think>'), 'Qwen3'],
  [(t) => t.includes('<|im_start|>') && t.includes('<tool_call>'), 'Qwen2.5'],
  [(t) => t.includes('<|im_start|>') && t.includes('<think>'), 'QwQ'],
  // SmolLM2's ChatML template writes its own default system text.
  [(t) => t.includes('<|im_start|>') && t.includes('SmolLM'), 'SmolLM2'],
  [(t) => t.includes('[TOOL_CALLS]') && t.includes('[ARGS]'), 'Ministral-3'],
  [(t) => t.includes('[AVAILABLE_TOOLS]'), 'Mistral-7B-Instruct-v0.3'],
  [
    (t) => t.includes('<|tool_call|>') || (t.includes('<|tool|>') && t.includes('<|assistant|>')),
    'Phi-4-mini',
  ],
  [(t) => t.includes('<｜Assistant｜>'), 'DeepSeek-R1'],
  [(t) => t.includes('<|channel>'), 'gemma-4'],
  // Gemma 2's template refuses a system turn; Gemma 3's folds it into the first user turn.
  [(t) => t.includes('<start_of_turn>') && t.includes('System role not supported'), 'gemma-2'],
  [(t) => t.includes('<start_of_turn>'), 'gemma-3'],
  [
    (t) => t.includes('<|start_header_id|>') && (t.includes('ipython') || t.includes('<|python_tag|>')),
    'Llama-3.1',
  ],
  [(t) => t.includes('<|start_header_id|>'), 'Llama-3-'],
];

export interface FamilyHints {
  /** `tokenizer.chat_template` of the GGUF, when it has one. */
  chatTemplate?: string | null;
  /** `general.name` of the GGUF. */
  name?: string | null;
  /** The id the model is served under. */
  id?: string | null;
}

/**
 * The family of a GGUF model: by its chat template when that is recognisable, else by its name or
 * id as web-llm ids are matched (`Llama-3.2-1B…`), else the fallback family (taught `<tool_call>`).
 *
 * @example
 * detectFamily({ chatTemplate: '…<|start_header_id|>…' }).id; // 'llama3'
 * detectFamily({ name: 'Qwen2.5 1.5B Instruct' }).id; // 'qwen2.5'
 */
export function detectFamily(hints: FamilyHints): ModelFamily {
  const template = hints.chatTemplate ?? '';
  const byTemplate = FINGERPRINTS.find(([test]) => test(template));
  if (byTemplate) return familyOf(byTemplate[1]);
  for (const label of [hints.name, hints.id]) {
    if (!label) continue;
    const family = familyOf(label.trim().replace(/\s+/g, '-'));
    if (family.id !== 'other') return family;
  }
  return familyOf('');
}
