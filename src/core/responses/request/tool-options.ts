import type { FunctionTool } from 'openai/resources/responses/responses';
import { clip, invalidRequest } from '../../../common/api-error';
import type { FunctionToolSpec, ToolChoiceSpec } from '../../../engine/types';
import { parseOrThrow } from '../../plumbing/validate';
import { type CreateResponseBody, functionToolSchema } from './create-schema';

/**
 * The request's `tools` as OpenAI echoes them (`strict` defaults to true; the optional fields the
 * request set come back as sent). Only function tools run locally; any other type is a 400 naming
 * `tools[i].type`, and so are async tools and tools only programs may call.
 *
 * @example
 * parseTools(body) // → [{ type: 'function', name: 'f', description: null, parameters: null, strict: true }]
 */
export function parseTools(body: CreateResponseBody): FunctionTool[] {
  return (body.tools ?? []).map((raw, i) => {
    if (raw.type !== 'function') {
      throw invalidRequest(
        `tools[${i}].type`,
        `Tool type '${clip(raw.type)}' is not supported by intab: only 'function' tools run locally.`,
        'unsupported_value',
      );
    }
    const t = parseOrThrow(functionToolSchema, raw, ['tools', i]);
    if (t.async) {
      throw invalidRequest(
        `tools[${i}].async`,
        'Asynchronous tool calls are not supported by intab: a local response ends at its tool calls and takes their outputs on the next request.',
        'unsupported_value',
      );
    }
    if (t.allowed_callers && !t.allowed_callers.includes('direct')) {
      throw invalidRequest(
        `tools[${i}].allowed_callers`,
        "A tool only programs may call is not supported by intab: programmatic tool calling runs on OpenAI's platform. Include 'direct'.",
        'unsupported_value',
      );
    }
    return {
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? true,
      ...(t.allowed_callers != null && { allowed_callers: t.allowed_callers }),
      ...(t.async !== undefined && { async: t.async }),
      ...(t.defer_loading !== undefined && { defer_loading: t.defer_loading }),
      ...(t.output_schema != null && { output_schema: t.output_schema }),
    };
  });
}

/**
 * `tool_choice` as the engine's choice plus the tools it may call (`allowed_tools` applied).
 *
 * @example
 * parseToolChoice(body, tools) // → { choice: 'auto', allowed: tools }
 */
export function parseToolChoice(
  body: CreateResponseBody,
  tools: FunctionTool[],
): { choice: ToolChoiceSpec; allowed: FunctionTool[] } {
  const tc = body.tool_choice ?? 'auto';
  if (typeof tc === 'string') {
    if (tc === 'required' && tools.length === 0) {
      throw invalidRequest(
        'tool_choice',
        "Tool choice 'required' must be specified with 'tools' parameter.",
        'invalid_value',
      );
    }
    return { choice: tc, allowed: tools };
  }
  if (tc.type === 'function') {
    const name = (tc as { name: string }).name;
    const tool = tools.find((t) => t.name === name);
    if (!tool)
      throw invalidRequest(
        'tool_choice',
        `Tool choice '${clip(name)}' not found in 'tools' parameter.`,
        'invalid_value',
      );
    return { choice: { name }, allowed: [tool] };
  }
  if (tc.type === 'allowed_tools') {
    const spec = tc as { mode: 'auto' | 'required'; tools: { type: string; name?: string }[] };
    const allowed = spec.tools.map((ref, i) => {
      const tool = tools.find((t) => ref.type === 'function' && t.name === ref.name);
      if (!tool)
        throw invalidRequest(
          `tool_choice.tools[${i}]`,
          `Tool '${clip(ref.name ?? ref.type)}' not found in 'tools' parameter.`,
          'invalid_value',
        );
      return tool;
    });
    return { choice: spec.mode, allowed };
  }
  throw invalidRequest(
    'tool_choice.type',
    `Tool choice type '${clip(tc.type)}' is not supported by intab: only function tools run locally.`,
    'unsupported_value',
  );
}

/** @example toSpec(tool) // → { name, description, parameters, strict } */
export function toSpec(t: FunctionTool): FunctionToolSpec {
  return { name: t.name, description: t.description ?? null, parameters: t.parameters, strict: t.strict };
}
