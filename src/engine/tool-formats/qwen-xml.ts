/**
 * Qwen3.5's (and Qwen3-Coder's) XML tool calls, `<tool_call>\n<function=name>\n<parameter=p>\nvalue\n
 * </parameter>\n</function>\n</tool_call>`, constrained with xgrammar's `qwen_xml_parameter` format.
 */
import type { FunctionToolSpec } from '../types';
import { isRecord, parsedArguments, pyJson, tryJson } from './json-text';
import { argumentSchema, closingEnd, openAiTool } from './shared';
import type { HistoryCall, HistoryResult, ParsedToolCall, TagSpec, ToolFormat } from './types';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

/**
 * @example
 * qwenXmlFormat.renderCalls([{ name: 'f', arguments: '{"city":"Paris"}', callId: 'c1' }]);
 * // '<tool_call>\n<function=f>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>'
 */
export const qwenXmlFormat: ToolFormat = {
  id: 'qwen-xml',
  // Qwen3.5's template lists the tools first and appends the system text after them.
  placement: 'system-before',
  toolSection(tools: FunctionToolSpec[]): string {
    return [
      '# Tools',
      '',
      'You have access to the following functions:',
      '',
      `<tools>\n${tools.map((t) => pyJson(openAiTool(t))).join('\n')}\n</tools>`,
      '',
      'If you choose to call a function ONLY reply in the following format with NO suffix:',
      '',
      '<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n' +
        '<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n' +
        '</parameter>\n</function>\n</tool_call>',
      '',
      '<IMPORTANT>',
      'Reminder:',
      '- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags',
      '- Required parameters MUST be specified',
      '- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after',
      '- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls',
      '</IMPORTANT>',
    ].join('\n');
  },
  renderCalls(calls: HistoryCall[]): string {
    return calls
      .map((c) => {
        const args = parsedArguments(c.arguments);
        const params = isRecord(args)
          ? Object.entries(args).map(
              ([k, v]) => `<parameter=${k}>\n${typeof v === 'string' ? v : pyJson(v)}\n</parameter>\n`,
            )
          : [];
        return `${OPEN}\n<function=${c.name}>\n${params.join('')}</function>\n${CLOSE}`;
      })
      .join('\n');
  },
  renderResults(results: HistoryResult[]): string {
    return results.map((r) => `<tool_response>\n${r.content}\n</tool_response>`).join('\n');
  },
  triggers: [OPEN],
  tags(tools: FunctionToolSpec[]): TagSpec[] {
    return tools.map((t) => {
      const schema = argumentSchema(t);
      // xgrammar 0.1.27 aborts (a WASM abort, not an exception) on a parameter schema without
      // properties, so a call with no parameters is spelled out instead.
      const props = schema.properties;
      if (typeof props !== 'object' || props === null || Object.keys(props).length === 0) {
        return {
          type: 'tag',
          begin: `${OPEN}\n<function=${t.name}>`,
          content: { type: 'const_string', value: '\n' },
          end: `</function>\n${CLOSE}`,
        };
      }
      // The parameter grammar ends at the last `</parameter>`; the newline after it is the end's.
      return {
        type: 'tag',
        begin: `${OPEN}\n<function=${t.name}>\n`,
        content: { type: 'qwen_xml_parameter', json_schema: schema },
        end: `\n</function>\n${CLOSE}`,
      };
    });
  },
  regionEnd: (text) => closingEnd(text, CLOSE),
  parseRegion(region, known): ParsedToolCall[] | null {
    const m = /^<tool_call>\s*<function=([^>\n]+)>([\s\S]*?)<\/function>\s*<\/tool_call>$/.exec(region);
    if (!m) return null;
    const name = (m[1] as string).trim();
    if (!known.includes(name)) return null;
    const args: Record<string, unknown> = {};
    for (const p of (m[2] as string).matchAll(/<parameter=([^>\n]+)>\n?([\s\S]*?)\n?<\/parameter>/g)) {
      const raw = p[2] as string;
      // Strings are written bare; anything else as JSON (numbers, booleans, objects).
      const value = tryJson(raw);
      args[(p[1] as string).trim()] = value === undefined || typeof value === 'string' ? raw : value;
    }
    return [{ name, arguments: JSON.stringify(args) }];
  },
};
