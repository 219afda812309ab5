/**
 * What both real engines decide the same way from a `GenerateRequest` before they build their own
 * request: which tools the model may call, whether a call is forced, whether the family's think
 * block is on, and the system line that asks for JSON.
 */
import type { FunctionToolSpec, GenerateRequest, OutputFormatSpec, ToolChoiceSpec } from '../types';
import type { ModelFamily, ReasoningMarkers } from './model-family';

export interface ToolAndThinkingPlan {
  /** The tools the model may call; empty when it may call none. */
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
  req: Pick<GenerateRequest, 'tools' | 'toolChoice' | 'reasoningEffort'>,
  family: ModelFamily,
): ToolAndThinkingPlan {
  const tools = allowedTools(req.tools, req.toolChoice);
  const effortOff = req.reasoningEffort === 'none' || req.reasoningEffort === 'minimal';
  const disableThinking = family.canDisableThinking && effortOff;
  const thinking = family.alwaysThinks && !disableThinking ? family.reasoning : null;
  const optional = family.reasoning && !family.alwaysThinks && !family.reasoning.prefilled;
  return {
    tools,
    forced: tools.length > 0 && req.toolChoice !== 'auto',
    disableThinking,
    thinking,
    mayThink: optional && !disableThinking ? family.reasoning : null,
  };
}

/**
 * The tools the model may call for this choice; empty when it may call none.
 *
 * @example
 * allowedTools(tools, { name: 'get_weather' }).map((t) => t.name); // ['get_weather']
 */
export function allowedTools(tools: FunctionToolSpec[], choice: ToolChoiceSpec): FunctionToolSpec[] {
  if (choice === 'none') return [];
  if (typeof choice === 'object') return tools.filter((t) => t.name === choice.name);
  return tools;
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
