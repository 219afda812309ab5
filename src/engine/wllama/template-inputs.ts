/**
 * Everything handed to the GGUF's chat template for one conversation: the messages, and the template
 * variables (llama.cpp's `chat_template_kwargs`). Generation and token counting both build them
 * here, so a count renders exactly the prompt a generation would.
 */
import type { ModelFamily } from '../tool-formats/model-family';
import { jsonInstruction, planToolsAndThinking } from '../tool-formats/request-plan';
import { openAiTool } from '../tool-formats/shared';
import type { ChatMessage, FunctionToolSpec, GenerateRequest } from '../types';
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
  /** The tools the prompt shows: every one the request declares, whatever its choice. */
  tools: FunctionToolSpec[];
  modelId: string;
  /** `enable_thinking=false` for templates that support it (Qwen3, Qwen3.5). */
  disableThinking?: boolean;
  /** Token counting renders any history; a generation needs the user or a tool to speak last. */
  anyLastTurn?: boolean;
}

/**
 * The families whose published template writes the tool list from `tools` and a turn's calls from
 * its `tool_calls` in a way intab's own text cannot reproduce: Meta's Llama 3.1/3.2 (`Environment:
 * ipython`, the prose of a calling turn dropped), NousResearch's tool_use (its own system turn, the
 * prose dropped), mistralai's v3 (`[AVAILABLE_TOOLS]` before the last `[INST]`, `[TOOL_CALLS]` with
 * no space before it, which its assistant-text branch writes) and Ministral 3 (`[AVAILABLE_TOOLS]`
 * after the system prompt), and QwQ (its tool system turn opens with a blank line when the request
 * has no system text). mistralai's and Ministral's raise on a calling turn sent as text followed by
 * another assistant turn (their role alternation skips only turns with `tool_calls`). The other Qwen
 * templates write exactly intab's text, which stays (and keeps Qwen3.5's raw-value rendering intab's own).
 */
const TEMPLATE_WRITES_TOOLS = new Set(['llama3.1', 'hermes', 'mistral', 'ministral3', 'qwq']);

/**
 * Whether the family's GGUF template is handed the tools (`tools`) and the calls (`tool_calls`) to
 * write itself, instead of intab's own text for them.
 */
export function templateWritesTools(family: ModelFamily): boolean {
  return TEMPLATE_WRITES_TOOLS.has(family.id) && family.templateWritesTools !== false;
}

/**
 * The template's inputs. For the families of `templateWritesTools` the tools go to the template as
 * `tools` (llama.cpp sets each `chat_template_kwargs` entry as a template variable; its own `tools`
 * parameter would turn on its tool-call handling, which refuses a grammar), for Llama 3.1/3.2 with
 * `tools_in_user_message: false`, the variant intab keeps (the tool list stays in the system block
 * the KV cache reuses), and calls go as `tool_calls`; other families get their tool section in the
 * system text and their calls as text.
 *
 * @example
 * templateInputs(messages, { family: familyOf('Llama-3.1-8B-Instruct'), system: [], tools, modelId });
 * // { messages: [...], kwargs: { tools: [{ type: 'function', function: {...} }], tools_in_user_message: false } }
 */
export function templateInputs(messages: ChatMessage[], opts: TemplateInputOptions): TemplateInputs {
  const { family, tools } = opts;
  const writes = templateWritesTools(family);
  const toTemplate = tools.length > 0 && writes;
  const rendered = toTemplateMessages(messages, {
    family,
    system: opts.system,
    toolSection: tools.length > 0 && !toTemplate ? family.tools.toolSection(tools) : null,
    modelId: opts.modelId,
    templateCalls: writes,
    ...(opts.anyLastTurn ? { anyLastTurn: true } : {}),
  });
  const kwargs: Record<string, unknown> = {
    ...family.templateKwargs,
    ...(toTemplate ? { tools: tools.map(openAiTool) } : {}),
    ...(toTemplate && family.systemHead ? { tools_in_user_message: false } : {}),
    ...(opts.disableThinking ? { enable_thinking: false } : {}),
  };
  return { messages: rendered, kwargs: Object.keys(kwargs).length > 0 ? kwargs : null };
}

/** What of a request the template inputs depend on. */
export type PromptRequest = Pick<
  GenerateRequest,
  'messages' | 'tools' | 'toolChoice' | 'format' | 'reasoningEffort' | 'model'
>;

/**
 * The template inputs a generation of `req` hands llama.cpp: every tool it declares (its choice is
 * the grammar's alone, as in llama.cpp), the JSON instruction of its format, `enable_thinking: false` for its effort. The generation's plan and
 * token counting both take them from here, so a count renders exactly the generation's prompt.
 * The instruction and the tool section print the schemas (15-70 ms each for an 870 KB one): each
 * gets a turn of its own (`pace`).
 *
 * @example
 * const { messages, kwargs } = await requestTemplateInputs(req, family, pace);
 */
export async function requestTemplateInputs(
  req: PromptRequest,
  family: ModelFamily,
  pace: () => Promise<void>,
  opts: { anyLastTurn?: boolean } = {},
): Promise<TemplateInputs> {
  const { promptTools: tools, disableThinking } = planToolsAndThinking(req, family);
  await pace();
  const system = req.format.type === 'text' ? [] : [jsonInstruction(req.format, tools.length > 0)];
  await pace();
  const inputs = templateInputs(req.messages, {
    family,
    system,
    tools,
    modelId: req.model,
    disableThinking,
    ...(opts.anyLastTurn ? { anyLastTurn: true } : {}),
  });
  await pace();
  return inputs;
}
