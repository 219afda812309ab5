/**
 * Qwen3.5's (and Qwen3-Coder's) XML tool calls, `<tool_call>\n<function=name>\n<parameter=p>\nvalue\n
 * </parameter>\n</function>\n</tool_call>`, each string value raw text (see qwen-xml-arguments.ts).
 */
import type { FunctionToolSpec } from '../types';
import { isRecord, parsedArguments, pyJson, tryJson } from './json-text';
import {
  freeParameters,
  PYTHON_LITERALS,
  QWEN_FREE_PARAMETERS,
  qwenXmlParameters,
  templateValue,
} from './qwen-xml-arguments';
import { qwenXmlArgumentsStart, scanQwenCall } from './qwen-xml-scan';
import { jsonType, schemaTypes } from './schema-types';
import { closingEnd, grammarArguments, openAiTool } from './shared';
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
          ? Object.entries(args).map(([k, v]) => `<parameter=${k}>\n${templateValue(v)}\n</parameter>\n`)
          : [];
        return `${OPEN}\n<function=${c.name}>\n${params.join('')}</function>\n${CLOSE}`;
      })
      .join('\n');
  },
  renderResults(results: HistoryResult[]): string {
    // The template trims each message's content, a tool result's too.
    return results.map((r) => `<tool_response>\n${r.content.trim()}\n</tool_response>`).join('\n');
  },
  callSeparator: '\n',
  triggers: [OPEN],
  // wllama's GBNF builder reads these (`qwen_xml_parameter`, and the free parameters of a tool whose
  // schema lists none), with the same raw values as web-llm's `structuralTags`.
  tags(tools: FunctionToolSpec[]): TagSpec[] {
    return tools.map((t) => {
      const schema = grammarArguments(t);
      if (!hasProperties(schema)) return noPropertiesTag(t.name, schema, { type: QWEN_FREE_PARAMETERS });
      // The parameter grammar ends at the last `</parameter>`; the newline after it is the end's.
      return {
        type: 'tag',
        begin: `${OPEN}\n<function=${t.name}>\n`,
        content: { type: 'qwen_xml_parameter', json_schema: schema },
        end: `\n</function>\n${CLOSE}`,
      };
    });
  },
  structuralTags(tools: FunctionToolSpec[]): TagSpec[] {
    return tools.map((t) => {
      const schema = grammarArguments(t);
      if (!hasProperties(schema)) return noPropertiesTag(t.name, schema, freeParameters());
      return {
        type: 'tag',
        begin: `${OPEN}\n<function=${t.name}>\n`,
        content: qwenXmlParameters(schema),
        end: `</function>\n${CLOSE}`,
      };
    });
  },
  regionEnd(text) {
    const call = scanQwenCall(text);
    if (call === 'incomplete') return -1;
    return call === 'malformed' ? closingEnd(text, CLOSE) : call.end;
  },
  argumentsStart: (region, schemas) => qwenXmlArgumentsStart(region, schemas, typedValue),
  parseRegion(region, known, schemas): ParsedToolCall[] | null {
    const call = scanQwenCall(region);
    const read = typeof call === 'object' && call.end === region.length ? call : looseCall(region);
    if (!read || !known.includes(read.name)) return null;
    const props = schemas?.[read.name]?.properties;
    const args: Record<string, unknown> = {};
    for (const [key, raw] of read.params)
      args[key] = typedValue(raw, isRecord(props) ? props[key] : undefined);
    return [{ name: read.name, arguments: JSON.stringify(args) }];
  },
};

function hasProperties(schema: Record<string, unknown>): boolean {
  const props = schema.properties;
  return typeof props === 'object' && props !== null && Object.keys(props).length > 0;
}

/**
 * A tool whose schema lists no properties (xgrammar 0.1.27 aborts on such a `qwen_xml_parameter`):
 * no parameters when the schema closes the object, else any, as `content` spells them.
 */
function noPropertiesTag(
  name: string,
  schema: Record<string, unknown>,
  content: Record<string, unknown>,
): TagSpec {
  if (schema.additionalProperties === false) {
    return {
      type: 'tag',
      begin: `${OPEN}\n<function=${name}>`,
      content: { type: 'const_string', value: '\n' },
      end: `</function>\n${CLOSE}`,
    };
  }
  return { type: 'tag', begin: `${OPEN}\n<function=${name}>\n`, content, end: `</function>\n${CLOSE}` };
}

/** A call not in the grammar's shape (whitespace of its own), read as loosely as vLLM's parser. */
function looseCall(region: string): { name: string; params: Array<[string, string]> } | null {
  const m = /^<tool_call>\s*<function=([^>\n]+)>([\s\S]*?)<\/function>\s*<\/tool_call>$/.exec(region);
  if (!m) return null;
  const params = [...(m[2] as string).matchAll(/<parameter=([^>\n]+)>\n?([\s\S]*?)\n?<\/parameter>/g)].map(
    (p): [string, string] => [(p[1] as string).trim(), p[2] as string],
  );
  return { name: (m[1] as string).trim(), params };
}

/**
 * A bare parameter value as its schema types it, as Qwen's own parser converts by the declared type:
 * `75001` stays a string where the schema says string, and a string is the text as written (`"x"`
 * keeps its quotes, no escape is decoded). Without a schema, JSON where it parses to a non-string,
 * else the text.
 *
 * @example
 * typedValue('75001', { type: 'string' }); // '75001'
 * typedValue('3', { type: 'integer' }); // 3
 * typedValue('True', { type: 'boolean' }); // true
 */
export function typedValue(raw: string, schema: unknown): unknown {
  const types = schemaTypes(schema);
  // A string is never written as a JSON literal: `"x"` is the three characters, quotes included.
  // The template writes booleans and null as Python does (`True`, `None`): read as JSON's.
  const json = Object.hasOwn(PYTHON_LITERALS, raw) ? PYTHON_LITERALS[raw] : tryJson(raw);
  const parsed = typeof json === 'string' ? undefined : json;
  if (types.size === 0) return parsed === undefined ? raw : parsed;
  if (parsed !== undefined && types.has(jsonType(parsed))) return parsed;
  if (types.has('integer') && typeof parsed === 'number' && Number.isInteger(parsed)) return parsed;
  return types.has('string') || parsed === undefined ? raw : parsed;
}
