/**
 * `custom` tools (issue 45): a tool whose call carries one free-form `input` string instead of JSON
 * arguments, held to the tool's grammar (`format: {type:'grammar', syntax:'regex'|'lark'}`) or free
 * (`{type:'text'}`). The engines see it as a function with one string parameter `input` (every
 * family already shows, constrains and parses those), whose `pattern` is the converted grammar
 * (engine/custom-grammar); the run turns that call back into a `custom_tool_call` item.
 */

import type { CustomTool } from 'openai/resources/responses/responses';
import * as z from 'zod/mini';
import { clip, invalidRequest } from '../../../../common/api-error';
import { customPattern } from '../../../../engine/custom-grammar';
import { parseOrThrow } from '../../../validation/params';

const nullish = <T extends z.ZodMiniType>(t: T) => z.nullish(t);

const formatSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({
    type: z.literal('grammar'),
    syntax: z.enum(['lark', 'regex']),
    definition: z.string(),
  }),
]);

/** The `custom` entry of `tools`, as `CustomTool` types it. */
export const customToolSchema = z.strictObject({
  type: z.literal('custom'),
  name: z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'tool_name_pattern' })),
  description: nullish(z.string()),
  format: nullish(formatSchema),
  defer_loading: z.optional(z.boolean()),
  async: z.optional(z.boolean()),
  allowed_callers: nullish(z.array(z.enum(['direct', 'programmatic']))),
});

/**
 * A request's `custom` tool as OpenAI echoes it (`format` defaults to text), its grammar checked.
 *
 * @example
 * parseCustomTool({ type: 'custom', name: 'sql' }, 0); // { type: 'custom', name: 'sql', format: { type: 'text' } }
 */
export function parseCustomTool(raw: unknown, i: number): CustomTool {
  const t = parseOrThrow(customToolSchema, raw, ['tools', i]);
  if (t.async)
    throw invalidRequest(
      `tools[${i}].async`,
      'Asynchronous tool calls are not supported by intab: a local response ends at its tool calls and takes their outputs on the next request.',
      'unsupported_value',
    );
  if (t.allowed_callers && !t.allowed_callers.includes('direct'))
    throw invalidRequest(
      `tools[${i}].allowed_callers`,
      "A tool only programs may call is not supported by intab: programmatic tool calling runs on OpenAI's platform. Include 'direct'.",
      'unsupported_value',
    );
  customPattern(t.format, `tools[${i}].format`);
  return {
    type: 'custom',
    name: t.name,
    ...(t.description != null && { description: t.description }),
    format: t.format ?? { type: 'text' },
    ...(t.allowed_callers != null && { allowed_callers: t.allowed_callers }),
    ...(t.defer_loading !== undefined && { defer_loading: t.defer_loading }),
  };
}

/** Two tools of one name would make a custom call ambiguous: a 400 on the second. */
export function checkCustomNames(tools: readonly { type: string; name?: string }[]): void {
  if (!tools.some((t) => t.type === 'custom')) return;
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if ((t.type !== 'custom' && t.type !== 'function') || t.name === undefined) return;
    if (seen.has(t.name))
      throw invalidRequest(
        `tools[${i}].name`,
        `Duplicate tool name '${clip(t.name)}': each function and custom tool needs its own name.`,
        'invalid_value',
      );
    seen.add(t.name);
  });
}
