/**
 * Everything handed to the GGUF's chat template for one conversation: the messages, and the template
 * variables (llama.cpp's `chat_template_kwargs`). Generation and token counting both build them
 * here, so a count renders exactly the prompt a generation would.
 */
import type { ModelFamily } from '../tool-formats/model-family';
import { openAiTool } from '../tool-formats/shared';
import type { ChatMessage, FunctionToolSpec } from '../types';
import { type TemplateMessage, toTemplateMessages } from './template-messages';

export interface TemplateInputs {
  messages: TemplateMessage[];
  /** Template variables, or null when the template needs none. */
  kwargs: Record<string, unknown> | null;
}

export interface TemplateInputOptions {
  family: ModelFamily;
  /** Extra system sections (the JSON instruction). */
  system: string[];
  /** The tools offered (empty for none). */
  tools: FunctionToolSpec[];
  modelId: string;
  /** `enable_thinking=false` for templates that support it (Qwen3, Qwen3.5). */
  disableThinking?: boolean;
  /** Token counting renders any history; a generation needs the user or a tool to speak last. */
  anyLastTurn?: boolean;
}

/**
 * Whether the family's GGUF template writes the tool list itself when given `tools` (Meta's Llama
 * 3.1/3.2 templates: `Environment: ipython` and the functions in the system block under
 * `tools_in_user_message=false`), so that intab hands it the tools instead of its own section.
 */
export function templateWritesTools(family: ModelFamily): boolean {
  return family.systemHead !== undefined;
}

/**
 * The template's inputs. For Llama 3.1/3.2 the tools go to the template as `tools` (llama.cpp sets
 * each `chat_template_kwargs` entry as a template variable; its own `tools` parameter would turn on
 * its tool-call handling, which refuses a grammar) with `tools_in_user_message: false`, the variant
 * intab keeps (the tool list stays in the system block the KV cache reuses); other families get
 * their tool section in the system text.
 *
 * @example
 * templateInputs(messages, { family: familyOf('Llama-3.1-8B-Instruct'), system: [], tools, modelId });
 * // { messages: [...], kwargs: { tools: [{ type: 'function', function: {...} }], tools_in_user_message: false } }
 */
export function templateInputs(messages: ChatMessage[], opts: TemplateInputOptions): TemplateInputs {
  const { family, tools } = opts;
  const toTemplate = tools.length > 0 && templateWritesTools(family);
  const rendered = toTemplateMessages(messages, {
    family,
    system: opts.system,
    toolSection: tools.length > 0 && !toTemplate ? family.tools.toolSection(tools) : null,
    modelId: opts.modelId,
    ...(opts.anyLastTurn ? { anyLastTurn: true } : {}),
  });
  const kwargs: Record<string, unknown> = {
    ...(toTemplate ? { tools: tools.map(openAiTool), tools_in_user_message: false } : {}),
    ...(opts.disableThinking ? { enable_thinking: false } : {}),
  };
  return { messages: rendered, kwargs: Object.keys(kwargs).length > 0 ? kwargs : null };
}
