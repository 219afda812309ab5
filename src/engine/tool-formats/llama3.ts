/**
 * Llama 3.1 / 3.2's JSON tool calls, `{"name": …, "parameters": {…}}`, optionally after
 * `<|python_tag|>`, in the words of Meta's published template (its tools-in-system variant).
 */
import type { FunctionToolSpec } from '../types';
import { jsonEnd, parsedArguments, pyJson, pyJsonIndent } from './json-text';
import { argumentSchema, openAiTool, parseCallObjects } from './shared';
import type { HistoryCall, HistoryResult, TagSpec, ToolFormat } from './types';

const PYTHON_TAG = '<|python_tag|>';
const CALL_START = '{"name": ';

/**
 * @example
 * llama3Format.renderCalls([{ name: 'f', arguments: '{"a":1}', callId: 'c1' }]);
 * // '{"name": "f", "parameters": {"a": 1}}'
 */
export const llama3Format: ToolFormat = {
  id: 'llama3-json',
  placement: 'system-before',
  toolSection(tools: FunctionToolSpec[]): string {
    return (
      'You have access to the following functions. To call a function, please respond with JSON for a function call.' +
      'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' +
      'Do not use variables.\n\n' +
      tools.map((t) => `${pyJsonIndent(openAiTool(t), 4)}\n\n`).join('')
    ).trimEnd();
  },
  renderCalls(calls: HistoryCall[]): string {
    return calls.map((c) => pyJson({ name: c.name, parameters: parsedArguments(c.arguments) })).join('; ');
  },
  renderResults(results: HistoryResult[]): string {
    return results.map((r) => r.content).join('\n\n');
  },
  between: /^\s*;/,
  triggers: [CALL_START, PYTHON_TAG],
  tags(tools: FunctionToolSpec[]): TagSpec[] {
    return [CALL_START, `${PYTHON_TAG}${CALL_START}`].flatMap((start) =>
      tools.map(
        (t): TagSpec => ({
          type: 'tag',
          begin: `${start}${JSON.stringify(t.name)}, "parameters": `,
          content: { type: 'json_schema', json_schema: argumentSchema(t) },
          end: '}',
        }),
      ),
    );
  },
  regionEnd(text: string): number {
    const start = text.startsWith(PYTHON_TAG) ? PYTHON_TAG.length : 0;
    return jsonEnd(text, start);
  },
  parseRegion(region, known) {
    const body = region.startsWith(PYTHON_TAG) ? region.slice(PYTHON_TAG.length) : region;
    return parseCallObjects(body, known, 'parameters');
  },
};
