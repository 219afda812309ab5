/**
 * Hermes 2 Pro and Hermes 3 (NousResearch) in the words of their published tool-use template
 * (`tool_use` in their tokenizer_config): the same `<tool_call>` JSON calls and `<tool_response>`
 * results as Qwen's, but a system prompt of NousResearch's own ("You are a function calling AI
 * model…", each tool's description written as a Python signature with its Args), then the caller's
 * system text as a second system turn.
 */
import type { FunctionToolSpec } from '../types';
import { hermesFormat } from './hermes';
import { isRecord, pyJson } from './json-text';
import { argumentSchema } from './shared';
import type { ToolFormat } from './types';

const PY_TYPES: Record<string, string> = { string: 'str', number: 'float', integer: 'int', boolean: 'bool' };

/**
 * @example
 * nousHermesFormat.toolSection([weather]); // 'You are a function calling AI model. …</tool_call>'
 */
export const nousHermesFormat: ToolFormat = {
  ...hermesFormat,
  id: 'nous-hermes',
  // The template writes its tool block as the first system turn and the caller's system messages as
  // turns of their own; web-llm takes one system message, so the second turn is opened inside it
  // (`<|im_end|>` and `<|im_start|>` are special tokens, so the token ids are the template's).
  placement: 'system-before',
  separator: '<|im_end|>\n<|im_start|>system\n',
  toolSection(tools: FunctionToolSpec[]): string {
    return [
      "You are a function calling AI model. You are provided with function signatures within <tools></tools> XML tags. You may call one or more functions to assist with the user query. Don't make assumptions about what values to plug into functions. Here are the available tools: <tools> ",
      tools.map(toolLine).join('\n'),
      ' </tools>',
      // The template's own text, stray closing brace included.
      'Use the following pydantic model json schema for each tool call you will make: {"properties": {"name": {"title": "Name", "type": "string"}, "arguments": {"title": "Arguments", "type": "object"}}, "required": ["name", "arguments"], "title": "FunctionCall", "type": "object"}}\n',
      'For each function call return a json object with function name and arguments within <tool_call></tool_call> XML tags as follows:\n',
      '<tool_call>\n{"name": <function-name>, "arguments": <args-dict>}\n</tool_call>',
    ].join('');
  },
};

/** One tool as the template lists it: a JSON-looking line whose description is a Python signature. */
function toolLine(tool: FunctionToolSpec): string {
  const parameters = argumentSchema(tool);
  const properties = Object.entries(isRecord(parameters.properties) ? parameters.properties : {});
  const signature = properties.map(([name, spec]) => `${name}: ${pythonType(spec)}`).join(', ');
  const args = properties
    .map(([name, spec], i) => {
      const description =
        isRecord(spec) && typeof spec.description === 'string' ? spec.description.trim() : '';
      return `${i === 0 ? '    Args:\n' : ''}        ${name}(${pythonType(spec)}): ${description}`;
    })
    .join('');
  const description = `${tool.name}(${signature}) - ${tool.description ?? ''}\n\n${args}`;
  const schema = properties.length === 0 ? '{}' : pyJson(parameters);
  return `{"type": "function", "function": {"name": "${tool.name}", "description": "${description}", "parameters": ${schema}}`;
}

/**
 * The template's `json_to_python_type`. Arrays come out `list[Any]`: the template passes
 * `json_spec|items` (the schema's key-value pairs, not its `items`) to itself.
 */
function pythonType(spec: unknown): string {
  if (!isRecord(spec)) return 'Any';
  const type = spec.type;
  if (typeof type === 'string' && PY_TYPES[type]) return PY_TYPES[type];
  if (type === 'array') return 'list[Any]';
  if (type === 'object') {
    return spec.additionalProperties !== undefined
      ? `dict[str, ${pythonType(spec.additionalProperties)}]`
      : 'dict';
  }
  // Jinja's `iterable` test holds for lists and strings alike.
  if (Array.isArray(type) || typeof type === 'string') {
    return `Union[${[...type].map((t) => pythonType({ type: t })).join(',')}]`;
  }
  return 'Any';
}
