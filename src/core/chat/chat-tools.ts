import { clip, invalidRequest } from '../../common/api-error';
import type { FunctionToolSpec, ToolChoiceSpec } from '../../engine/types';
import { parseOrThrow } from '../validation/params';
import { parseChatCustomTool } from './chat-custom-tools';
import { type ChatCompletionBody, chatFunctionToolSchema } from './chat-schema';

/**
 * Chat Completions' `tools` and `tool_choice`, as the engine's tool specs and choice. Only function
 * and custom tools run locally (chat-custom-tools.ts).
 */

/**
 * `tools` as the engine's specs. Only function tools run locally; `strict` defaults to false, as in
 * Chat Completions (Responses defaults it to true).
 *
 * @example
 * parseChatTools(body) // → [{ name: 'get_weather', description: null, parameters: {…}, strict: false }]
 */
export function parseChatTools(body: ChatCompletionBody): FunctionToolSpec[] {
  return (body.tools ?? []).map((raw, i) => {
    if (raw.type === 'custom') return parseChatCustomTool(raw, i);
    if (raw.type !== 'function') {
      refuse(
        `tools[${i}].type`,
        `Tool type '${clip(raw.type)}' is not supported by intab: only 'function' and 'custom' tools run locally.`,
      );
    }
    const { function: f } = parseOrThrow(chatFunctionToolSchema, raw, ['tools', i]);
    return {
      name: f.name,
      description: f.description ?? null,
      parameters: f.parameters ?? null,
      strict: f.strict ?? false,
    };
  });
}

/**
 * `tool_choice` as the engine's choice plus the tools it may call (`allowed_tools` applied).
 *
 * @example
 * parseChatToolChoice(body, tools) // → { choice: { name: 'get_time' }, allowed: [getTime] }
 */
export function parseChatToolChoice(
  body: ChatCompletionBody,
  tools: FunctionToolSpec[],
): { choice: ToolChoiceSpec; allowed: FunctionToolSpec[] } {
  const tc = body.tool_choice ?? 'auto';
  const find = (name: string, param: string): FunctionToolSpec => {
    const tool = tools.find((t) => t.name === name);
    if (!tool)
      throw invalidRequest(
        param,
        `Invalid value for '${param}': function '${clip(name)}' not found in 'tools'.`,
        'invalid_value',
      );
    return tool;
  };
  if (typeof tc === 'string') {
    if (tc === 'required' && tools.length === 0) {
      throw invalidRequest(
        'tool_choice',
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        'invalid_value',
      );
    }
    return { choice: tc, allowed: tools };
  }
  if (tc.type === 'function')
    return { choice: { name: tc.function.name }, allowed: [find(tc.function.name, 'tool_choice')] };
  if (tc.type === 'custom')
    return { choice: { name: tc.custom.name }, allowed: [find(tc.custom.name, 'tool_choice')] };
  if (tc.type === 'allowed_tools') {
    const allowed = tc.allowed_tools.tools.map((ref, i) => {
      const param = `tool_choice.allowed_tools.tools[${i}]`;
      if (ref.type !== 'function' && ref.type !== 'custom')
        refuse(
          `${param}.type`,
          `Tool type '${clip(ref.type)}' is not supported by intab: only 'function' and 'custom' tools run locally.`,
        );
      const key = ref.type as 'function' | 'custom';
      const name = (ref as Record<string, { name?: unknown } | undefined>)[key]?.name;
      if (typeof name !== 'string')
        throw invalidRequest(
          `${param}.${key}.name`,
          `Missing required parameter: '${param}.${key}.name'.`,
          'missing_required_parameter',
        );
      return find(name, param);
    });
    return { choice: tc.allowed_tools.mode, allowed };
  }
  return refuse('tool_choice.type', 'This tool choice type is not supported by intab.');
}

function refuse(param: string, message: string): never {
  throw invalidRequest(param, message, 'unsupported_value');
}
