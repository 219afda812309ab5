/**
 * Chat Completions' `custom` tools (issue 45): `{type:'custom', custom:{name, description?, format?}}`
 * whose `format` is `{type:'text'}` or `{type:'grammar', grammar:{definition, syntax}}`, on the same
 * converters as the Responses API's (core/responses/request/tools/custom-tool.ts): the engine sees a
 * function with one patterned `input`, and the reply's call is a `tool_calls[]` entry of type
 * `custom` with `custom.input`.
 */
import type { ChatCompletionMessageCustomToolCall } from 'openai/resources/chat/completions';
import * as z from 'zod/mini';
import { customArguments, customPattern, customSpec } from '../../engine/custom-grammar';
import type { ChatToolCall, FunctionToolSpec } from '../../engine/types';
import { parseOrThrow } from '../validation/params';

const chatCustomToolSchema = z.strictObject({
  type: z.literal('custom'),
  custom: z.strictObject({
    name: z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'tool_name_pattern' })),
    description: z.optional(z.string()),
    format: z.optional(
      z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('text') }),
        z.strictObject({
          type: z.literal('grammar'),
          grammar: z.strictObject({ definition: z.string(), syntax: z.enum(['lark', 'regex']) }),
        }),
      ]),
    ),
  }),
});

/**
 * A request's custom tool as the engine's spec, its grammar converted (a 400 on
 * `tools[i].custom.format.grammar.definition` for what the subset cannot express).
 *
 * @example
 * parseChatCustomTool({ type: 'custom', custom: { name: 'sql' } }, 0).parameters; // { type: 'object', properties: { input: … } … }
 */
export function parseChatCustomTool(raw: unknown, i: number): FunctionToolSpec {
  const { custom } = parseOrThrow(chatCustomToolSchema, raw, ['tools', i]);
  const f = custom.format;
  const format =
    f?.type === 'grammar' ? { type: 'grammar' as const, ...f.grammar } : { type: 'text' as const };
  customPattern(format, `tools[${i}].custom.format.grammar`);
  return customSpec({ name: custom.name, description: custom.description, format });
}

/** The names of the body's custom tools: the calls the reply writes as `type: 'custom'`. */
export function chatCustomNames(
  tools: readonly { type: string; custom?: unknown }[] | undefined,
): Set<string> {
  return new Set(
    (tools ?? []).flatMap((t) => {
      const name = (t.custom as { name?: unknown } | undefined)?.name;
      return t.type === 'custom' && typeof name === 'string' ? [name] : [];
    }),
  );
}

/** A custom call sent back in an assistant message, as the function call the model wrote. */
export function customCallAsFunction(c: ChatCompletionMessageCustomToolCall): ChatToolCall {
  return {
    id: c.id,
    type: 'function',
    function: { name: c.custom.name, arguments: customArguments(c.custom.input) },
  };
}
