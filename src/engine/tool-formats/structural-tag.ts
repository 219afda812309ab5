/**
 * The web-llm `response_format` that constrains tool calls: xgrammar's `triggered_tags`, so prose
 * stays free until the model opens a call, and the call's name and arguments must then match a tool.
 */
import type { FunctionToolSpec, OutputFormatSpec } from '../types';
import type { ToolFormat } from './types';

export interface CallConstraint {
  /** `required` or a named choice: the reply must be calls, from its first token. */
  forced: boolean;
  parallel: boolean;
  /** A JSON `text.format` the reply must follow when it does not call a tool (auto only). */
  format: OutputFormatSpec;
}

/**
 * The structural tag (web-xgrammar's `StructuralTag`) for `tools` in `format`.
 *
 * @example
 * toolStructuralTag(hermesFormat, tools, { forced: false, parallel: true, format: { type: 'text' } });
 * // {type:'structural_tag', format:{type:'triggered_tags', triggers:['<tool_call>'], tags:[…]}}
 */
export function toolStructuralTag(
  format: ToolFormat,
  tools: FunctionToolSpec[],
  c: CallConstraint,
): { type: 'structural_tag'; format: Record<string, unknown> } {
  const triggered = (atLeastOne: boolean) => ({
    type: 'triggered_tags',
    triggers: [...format.triggers],
    tags: format.tags(tools, c.parallel),
    at_least_one: atLeastOne,
    stop_after_first: !c.parallel,
  });
  if (c.forced || c.format.type === 'text') return { type: 'structural_tag', format: triggered(c.forced) };
  // Either the JSON answer or one call block. xgrammar 0.1.27 fails to compile `triggered_tags`
  // or `tags_with_separator` under `or`, so this branch allows one call block (a list, in the
  // formats that write several calls as one list).
  const schema = c.format.type === 'json_schema' ? c.format.schema : { type: 'object' };
  return {
    type: 'structural_tag',
    format: {
      type: 'or',
      elements: [{ type: 'json_schema', json_schema: schema }, ...format.tags(tools, c.parallel)],
    },
  };
}
