/**
 * What both real engines decide the same way from a `GenerateRequest` before they build their own
 * request: which tools the prompt shows (all of them), which the model may call, whether a call is
 * forced, whether the family's think block is on, and the system line that asks for JSON.
 */
import type { FunctionToolSpec, GenerateRequest, OutputFormatSpec, ToolChoiceSpec } from '../types';
import type { ModelFamily, ReasoningMarkers } from './model-family';

export interface ToolAndThinkingPlan {
  /**
   * The tools the prompt shows: every one the request declares, whatever the choice, as llama.cpp
   * renders them. The choice changes only what the grammar lets the reply call, so the prompt (and
   * the engines' prefix caches) stay the same from one choice to the next, and the history's calls
   * keep their tools (a converted Hermes GGUF renders them only when it is handed tools).
   */
  promptTools: FunctionToolSpec[];
  /** The tools the reply may call (the grammar's, the parser's); empty when it may call none. */
  tools: FunctionToolSpec[];
  /** A call is required from the first token (after any think block): `required` or a named tool. */
  forced: boolean;
  /**
   * Thinking is turned off through the template (effort `none`/`minimal`, on a family that can):
   * the template writes an empty think block, so nothing of the reply is reasoning.
   */
  disableThinking: boolean;
  /** The think block every reply opens with, which grammars must leave room for; null when none. */
  thinking: ReasoningMarkers | null;
  /**
   * The think block a reply may open with, for a family that thinks when its prompt asks
   * (Ministral 3 Reasoning, whose default system prompt wants `[THINK]…[/THINK]` first): grammars
   * that hold the reply from its first token leave room for it too. Null when none, or when
   * `thinking` is set.
   */
  mayThink: ReasoningMarkers | null;
}

/**
 * @example
 * const { tools, forced, thinking } = planToolsAndThinking(req, family);
 */
export function planToolsAndThinking(
  req: Pick<GenerateRequest, 'tools' | 'toolChoice' | 'allowedTools' | 'reasoningEffort'>,
  family: ModelFamily,
): ToolAndThinkingPlan {
  const tools = callableTools(req);
  const effortOff = req.reasoningEffort === 'none' || req.reasoningEffort === 'minimal';
  const disableThinking = family.canDisableThinking && effortOff;
  const thinking = family.alwaysThinks && !disableThinking ? family.reasoning : null;
  const optional = family.reasoning && !family.alwaysThinks && !family.reasoning.prefilled;
  return {
    promptTools: req.tools,
    tools,
    forced: tools.length > 0 && req.toolChoice !== 'auto',
    disableThinking,
    thinking,
    mayThink: optional && !disableThinking ? family.reasoning : null,
  };
}

/**
 * The tools the model may call for this choice, of those `allowed` names (null: all); empty when it
 * may call none.
 *
 * @example
 * allowedTools(tools, { name: 'get_weather' }).map((t) => t.name); // ['get_weather']
 */
export function allowedTools(
  tools: FunctionToolSpec[],
  choice: ToolChoiceSpec,
  allowed: readonly string[] | null = null,
): FunctionToolSpec[] {
  if (choice === 'none') return [];
  if (typeof choice === 'object') return tools.filter((t) => t.name === choice.name);
  if (allowed === null) return tools;
  const names = new Set(allowed);
  return tools.filter((t) => names.has(t.name));
}

/**
 * The tools a reply to `req` may call: its choice and `allowed_tools` applied to the tools it declares.
 *
 * @example
 * callableTools({ tools, toolChoice: 'none' }); // []
 */
export function callableTools(
  req: Pick<GenerateRequest, 'tools' | 'toolChoice' | 'allowedTools'>,
): FunctionToolSpec[] {
  return allowedTools(req.tools, req.toolChoice, req.allowedTools ?? null);
}

/**
 * `GenerateRequest.allowedTools` for a request that declares `declared` and lets the reply call
 * `callable` of them: their names, or null when that is every one.
 *
 * @example
 * allowedToolNames([weather, runCode], [weather]); // ['get_weather']
 */
export function allowedToolNames(
  declared: readonly { name: string }[],
  callable: readonly { name: string }[],
): string[] | null {
  const names = new Set(callable.map((t) => t.name));
  return declared.every((t) => names.has(t.name)) ? null : [...names];
}

/**
 * The system line that asks for JSON: a grammar alone holds the output but does not tell the model
 * what it is doing, and a model held to JSON it was not asked for may write whitespace forever.
 *
 * @example
 * jsonInstruction({ type: 'json_object' }, false); // 'Answer in JSON only: one JSON object, …'
 */
export function jsonInstruction(format: OutputFormatSpec, withTools: boolean): string {
  const lead = withTools ? 'When you answer without calling a function, answer' : 'Answer';
  if (format.type === 'json_schema') {
    return `${lead} in JSON only: one JSON value matching this JSON Schema, with no text before or after it.\n${JSON.stringify(format.schema)}`;
  }
  return `${lead} in JSON only: one JSON object, with no text before or after it.`;
}
