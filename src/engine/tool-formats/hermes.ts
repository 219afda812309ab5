/**
 * The `<tool_call>` JSON format of Qwen2.5, Qwen3 and Hermes 2 Pro / Hermes 3, in the words of
 * Qwen's published chat template. Families with no native format of their own are taught it too:
 * it is the most widely trained format, and the structural tag keeps the model to it.
 */
import type { FunctionToolSpec } from '../types';
import { parsedArguments, pyJson } from './json-text';
import { grammarArguments, openAiTool, wrappedJsonCalls } from './shared';
import type { HistoryCall, HistoryResult, TagSpec, ToolFormat } from './types';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

/**
 * @example
 * hermesFormat.renderCalls([{ name: 'f', arguments: '{"a":1}', callId: 'c1' }]);
 * // '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
 */
export const hermesFormat: ToolFormat = {
  id: 'hermes',
  placement: 'system',
  toolSection(tools: FunctionToolSpec[]): string {
    return [
      '# Tools',
      '',
      'You may call one or more functions to assist with the user query.',
      '',
      'You are provided with function signatures within <tools></tools> XML tags:',
      `<tools>\n${tools.map((t) => pyJson(openAiTool(t))).join('\n')}\n</tools>`,
      '',
      'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
      '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>',
    ].join('\n');
  },
  renderCalls(calls: HistoryCall[]): string {
    return calls
      .map((c) => `${OPEN}\n${pyJson({ name: c.name, arguments: parsedArguments(c.arguments) })}\n${CLOSE}`)
      .join('\n');
  },
  renderResults(results: HistoryResult[]): string {
    return results.map((r) => `<tool_response>\n${r.content}\n</tool_response>`).join('\n');
  },
  callSeparator: '\n',
  triggers: [OPEN],
  tags(tools: FunctionToolSpec[]): TagSpec[] {
    return tools.map((t) => ({
      type: 'tag',
      begin: `${OPEN}\n{"name": ${JSON.stringify(t.name)}, "arguments": `,
      content: { type: 'json_schema', json_schema: grammarArguments(t) },
      end: `}\n${CLOSE}`,
    }));
  },
  ...wrappedJsonCalls(OPEN, CLOSE),
};
