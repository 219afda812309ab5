/**
 * Qwen3.5's (and Qwen3-Coder's) XML tool calls, `<tool_call>\n<function=name>\n<parameter=p>\nvalue\n
 * </parameter>\n</function>\n</tool_call>`, each string value raw text (see qwen-xml-arguments.ts).
 */
import type { FunctionToolSpec } from '../types';
import { isRecord, parsedArguments, pyJson, tryJson } from './json-text';
import { ANY_PARAMETERS, qwenXmlParameters } from './qwen-xml-arguments';
import { jsonType, schemaTypes } from './schema-types';
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
    // The template trims each message's content, a tool result's too.
    return results.map((r) => `<tool_response>\n${r.content.trim()}\n</tool_response>`).join('\n');
  },
  triggers: [OPEN],
  tags(tools: FunctionToolSpec[]): TagSpec[] {
    return tools.map((t) => {
      const schema = argumentSchema(t);
      // A schema without properties: no parameters when it closes the object, else any (the
      // parser types them as it can).
      const props = schema.properties;
      if (typeof props !== 'object' || props === null || Object.keys(props).length === 0) {
        if (schema.additionalProperties === false) {
          return {
            type: 'tag',
            begin: `${OPEN}\n<function=${t.name}>`,
            content: { type: 'const_string', value: '\n' },
            end: `</function>\n${CLOSE}`,
          };
        }
        return {
          type: 'tag',
          begin: `${OPEN}\n<function=${t.name}>\n`,
          content: ANY_PARAMETERS,
          end: `</function>\n${CLOSE}`,
        };
      }
      return {
        type: 'tag',
        begin: `${OPEN}\n<function=${t.name}>\n`,
        content: qwenXmlParameters(schema),
        end: `</function>\n${CLOSE}`,
      };
    });
  },
  regionEnd: (text) => closingEnd(text, CLOSE),
  parseRegion(region, known, schemas): ParsedToolCall[] | null {
    const m = /^<tool_call>\s*<function=([^>\n]+)>([\s\S]*?)<\/function>\s*<\/tool_call>$/.exec(region);
    if (!m) return null;
    const name = (m[1] as string).trim();
    if (!known.includes(name)) return null;
    const args: Record<string, unknown> = {};
    const props = schemas?.[name]?.properties;
    for (const p of (m[2] as string).matchAll(/<parameter=([^>\n]+)>\n?([\s\S]*?)\n?<\/parameter>/g)) {
      const key = (p[1] as string).trim();
      args[key] = typedValue(p[2] as string, isRecord(props) ? props[key] : undefined);
    }
    return [{ name, arguments: JSON.stringify(args) }];
  },
};

/**
 * A bare parameter value as its schema types it, as Qwen's own parser converts by the declared type:
 * `75001` stays a string where the schema says string, and a string is the text as written (`"x"`
 * keeps its quotes, no escape is decoded). Without a schema, JSON where it parses to a non-string,
 * else the text.
 *
 * @example
 * typedValue('75001', { type: 'string' }); // '75001'
 * typedValue('3', { type: 'integer' }); // 3
 */
export function typedValue(raw: string, schema: unknown): unknown {
  const types = schemaTypes(schema);
  // A string is never written as a JSON literal: `"x"` is the three characters, quotes included.
  const json = tryJson(raw);
  const parsed = typeof json === 'string' ? undefined : json;
  if (types.size === 0) return parsed === undefined ? raw : parsed;
  if (parsed !== undefined && types.has(jsonType(parsed))) return parsed;
  if (types.has('integer') && typeof parsed === 'number' && Number.isInteger(parsed)) return parsed;
  return types.has('string') || parsed === undefined ? raw : parsed;
}
