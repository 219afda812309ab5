/**
 * Llama 3.1 / 3.2's JSON tool calls, `{"name": …, "parameters": {…}}`, optionally after
 * `<|python_tag|>`, in the words of Meta's published template (its tools-in-system variant). As Meta's
 * and vLLM's parsers read them, calls are the whole reply: one that opens with `{` or the tag, several
 * joined by `;`; a `{"name": …}` met in prose is prose.
 */
import type { FunctionToolSpec } from '../types';
import { jsonEnd, parsedArguments, pyJson, pyJsonIndent } from './json-text';
import { jsonArgumentsStart } from './partial-call';
import { grammarArguments, openAiTool, parseCallObjects } from './shared';
import type { HistoryCall, HistoryResult, TagSpec, ToolFormat } from './types';

const PYTHON_TAG = '<|python_tag|>';
const CALL_START = '{"name": ';
const SEPARATOR = '; ';

/**
 * @example
 * llama3Format.renderCalls([{ name: 'f', arguments: '{"a":1}', callId: 'c1' }]);
 * // '{"name": "f", "parameters": {"a": 1}}'
 */
export const llama3Format: ToolFormat = {
  id: 'llama3-json',
  placement: 'system-before',
  toolSection(tools: FunctionToolSpec[]): string {
    // Each tool is followed by a blank line, the last one too: the system text comes right after.
    return (
      'You have access to the following functions. To call a function, please respond with JSON for a function call.' +
      'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' +
      'Do not use variables.\n\n' +
      tools.map((t) => `${pyJsonIndent(openAiTool(t), 4)}\n\n`).join('')
    );
  },
  separator: '',
  renderCalls(calls: HistoryCall[]): string {
    return calls.map((c) => pyJson({ name: c.name, parameters: parsedArguments(c.arguments) })).join('; ');
  },
  renderResults(results: HistoryResult[]): string {
    // Meta's template writes a result `| tojson` whenever it is iterable, which a string is in
    // Jinja: the model reads each result as a JSON string.
    return results.map((r) => JSON.stringify(r.content)).join('\n\n');
  },
  between: /^\s*;/,
  leading: { separator: SEPARATOR },
  triggers: ['{', PYTHON_TAG],
  tags(tools: FunctionToolSpec[]): TagSpec[] {
    return [CALL_START, `${PYTHON_TAG}${CALL_START}`].flatMap((start) =>
      tools.map(
        (t): TagSpec => ({
          type: 'tag',
          begin: `${start}${JSON.stringify(t.name)}, "parameters": `,
          content: { type: 'json_schema', json_schema: grammarArguments(t) },
          end: '}',
        }),
      ),
    );
  },
  regionEnd(text: string): number {
    const start = text.startsWith(PYTHON_TAG) ? PYTHON_TAG.length : 0;
    return jsonEnd(text, start);
  },
  argumentsStart(region) {
    return jsonArgumentsStart(region, region.startsWith(PYTHON_TAG) ? PYTHON_TAG.length : 0);
  },
  parseRegion(region, known) {
    const body = region.startsWith(PYTHON_TAG) ? region.slice(PYTHON_TAG.length) : region;
    return parseCallObjects(body, known, 'parameters');
  },
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The date Llama 3.1's and 3.3's templates write when the caller passes none: a literal, not today
 * (`{%- set date_string = "26 Jul 2024" %}`); Llama 3.2's asks `strftime_now` for today's.
 */
const LLAMA31_DATE = '26 Jul 2024';

/**
 * The head of Llama 3.2's system block, as Meta's template always writes it: `Environment:
 * ipython` when tools are offered, then the knowledge cutoff and today's date (`strftime_now("%d %b %Y")`).
 *
 * @example
 * llama32SystemHead(true, new Date('2025-03-14T12:00:00Z'));
 * // 'Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 14 Mar 2025\n\n'
 */
export function llama32SystemHead(tools: boolean, now: Date): string {
  const day = String(now.getUTCDate()).padStart(2, '0');
  return systemHead(tools, `${day} ${MONTHS[now.getUTCMonth()]} ${now.getUTCFullYear()}`);
}

/**
 * The head of Llama 3.1's (and 3.3's) system block: as Llama 3.2's, but dated with the template's
 * own default, "26 Jul 2024", whatever the day.
 *
 * @example
 * llama31SystemHead(false, new Date());
 * // 'Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n'
 */
export function llama31SystemHead(tools: boolean, _now: Date): string {
  return systemHead(tools, LLAMA31_DATE);
}

function systemHead(tools: boolean, date: string): string {
  return `${tools ? 'Environment: ipython\n' : ''}Cutting Knowledge Date: December 2023\nToday Date: ${date}\n\n`;
}
