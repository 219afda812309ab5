/**
 * Phi-4-mini's `<|tool_call|>[{"name": …, "arguments": {…}}]<|/tool_call|>`, with the tools as a JSON
 * list in `<|tool|>…<|/tool|>` right after the system text, as Microsoft's model card shows.
 */
import type { FunctionToolSpec } from '../types';
import { parsedArguments, pyJson } from './json-text';
import { callListSchema, functionDefinition, wrappedJsonCalls } from './shared';
import type { HistoryCall, HistoryResult, TagSpec, ToolFormat } from './types';

const OPEN = '<|tool_call|>';
const CLOSE = '<|/tool_call|>';

/**
 * @example
 * phi4Format.renderCalls([{ name: 'f', arguments: '{}', callId: 'c1' }]); // '<|tool_call|>[{"name": "f", "arguments": {}}]<|/tool_call|>'
 */
export const phi4Format: ToolFormat = {
  id: 'phi4-mini',
  placement: 'system',
  separator: '',
  toolSection(tools: FunctionToolSpec[]): string {
    return `<|tool|>${pyJson(tools.map(functionDefinition))}<|/tool|>`;
  },
  renderCalls(calls: HistoryCall[]): string {
    const list = calls.map((c) => pyJson({ name: c.name, arguments: parsedArguments(c.arguments) }));
    return `${OPEN}[${list.join(', ')}]${CLOSE}`;
  },
  renderResults(results: HistoryResult[]): string {
    return results.map((r) => `<|tool_response|>${r.content}`).join('\n');
  },
  triggers: [OPEN],
  tags(tools: FunctionToolSpec[], parallel: boolean): TagSpec[] {
    return [
      {
        type: 'tag',
        begin: OPEN,
        content: { type: 'json_schema', json_schema: callListSchema(tools, parallel) },
        end: CLOSE,
      },
    ];
  },
  ...wrappedJsonCalls(OPEN, CLOSE),
};
