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
import { CustomGrammarError, larkInputPattern, regexInputPattern } from '../../../../engine/custom-grammar';
import type { FunctionToolSpec } from '../../../../engine/types';
import { parseOrThrow } from '../../../validation/params';

/** The one parameter a custom tool's call writes its input into. */
export const CUSTOM_INPUT = 'input';

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

export type CustomFormat = z.infer<typeof formatSchema>;

/**
 * The pattern a custom tool's `input` must match (null: any text), converted from its grammar;
 * what the subset cannot express is a 400 on `param` naming the construct.
 *
 * @example
 * customPattern({ type: 'grammar', syntax: 'regex', definition: '\\d+' }, 'tools[0].format'); // '^(?:\\d+)$'
 */
export function customPattern(format: CustomFormat | null | undefined, param: string): string | null {
  if (!format || format.type === 'text') return null;
  try {
    return format.syntax === 'regex'
      ? regexInputPattern(format.definition)
      : larkInputPattern(format.definition);
  } catch (err) {
    if (err instanceof CustomGrammarError)
      throw invalidRequest(
        `${param}.definition`,
        `Invalid ${format.syntax} grammar: ${err.message}`,
        'invalid_grammar',
      );
    throw err;
  }
}

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

/**
 * A custom tool as the engines see it: a strict function whose one required string `input` holds
 * the grammar as its `pattern`. The description says the input is free-form, so a family's prompt
 * tells the model what the tool takes.
 *
 * @example
 * customSpec({ type: 'custom', name: 'sql', format: { type: 'text' } }).parameters;
 * // { type: 'object', properties: { input: { type: 'string' } }, required: ['input'], additionalProperties: false }
 */
export function customSpec(t: Pick<CustomTool, 'name' | 'description' | 'format'>): FunctionToolSpec {
  const pattern = customPattern(t.format as CustomFormat | undefined, 'tools');
  const input: Record<string, unknown> = {
    type: 'string',
    description:
      pattern === null
        ? 'The free-form input of this tool.'
        : `The free-form input of this tool, matching the ${(t.format as { syntax: string }).syntax} grammar: ${clip((t.format as { definition: string }).definition, 2000)}`,
    ...(pattern !== null && { pattern }),
  };
  return {
    name: t.name,
    description: t.description ?? null,
    parameters: {
      type: 'object',
      properties: { [CUSTOM_INPUT]: input },
      required: [CUSTOM_INPUT],
      additionalProperties: false,
    },
    strict: true,
  };
}

/**
 * The `input` of a custom call from the arguments the engine parsed (`{"input": "…"}`); arguments
 * of another shape (a model writing free JSON under `auto`) are the input as written.
 *
 * @example
 * customInput('{"input":"SELECT 1"}'); // 'SELECT 1'
 */
export function customInput(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (
      typeof v === 'object' &&
      v !== null &&
      typeof (v as Record<string, unknown>)[CUSTOM_INPUT] === 'string'
    )
      return (v as Record<string, string>)[CUSTOM_INPUT] as string;
  } catch {
    // Not JSON: the text itself is the input.
  }
  return args;
}

/** The arguments a custom call's `input` is shown to the model as, in history. */
export function customArguments(input: string): string {
  return JSON.stringify({ [CUSTOM_INPUT]: input });
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
