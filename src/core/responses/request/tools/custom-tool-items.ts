/**
 * The items of `custom` tools (issue 45) as `input` may carry them, and how the rest of the request
 * reads them: history shows a custom call as the family's call of a function with one `input`
 * parameter, and its output as that call's result, so pairing and chat messages treat them as the
 * function items they stand for.
 */
import type {
  ResponseCustomToolCall,
  ResponseCustomToolCallOutput,
  ResponseItem,
} from 'openai/resources/responses/responses';
import * as z from 'zod/mini';
import { customArguments } from '../../../../engine/custom-grammar';

/**
 * The two item schemas, built on create-schema's content parts and caller (passed in: that module
 * imports this one, and a cycle would leave them undefined when these are built).
 */
export function customToolItemSchemas<P extends z.ZodMiniType, C extends z.ZodMiniType>(part: P, caller: C) {
  const call = z.strictObject({
    type: z.literal('custom_tool_call'),
    call_id: z.string().check(z.minLength(1)),
    name: z.string(),
    input: z.string(),
    id: z.optional(z.string().check(z.minLength(1))),
    namespace: z.optional(z.string()),
    async: z.optional(z.boolean()),
    status: z.optional(z.enum(['in_progress', 'completed', 'incomplete'])),
    caller: z.nullish(caller),
  });
  const output = z.strictObject({
    type: z.literal('custom_tool_call_output'),
    call_id: z.string().check(z.minLength(1)),
    output: z.union([z.string(), z.array(part)]),
    id: z.nullish(z.string()),
    status: z.optional(z.enum(['in_progress', 'completed', 'incomplete'])),
    caller: z.nullish(caller),
  });
  return { call, output };
}

/** What intab stores for an item that is a custom call or its output (a stored item keeps an id). */
export function storedCustomItem(
  item: (ResponseCustomToolCall | ResponseCustomToolCallOutput) & { status?: string },
  newId: (prefix: 'ctc' | 'ctco') => string,
): ResponseItem {
  const { caller, ...rest } = item;
  const id = item.id ?? newId(item.type === 'custom_tool_call' ? 'ctc' : 'ctco');
  const stored = { ...rest, ...(caller && { caller }), id, status: item.status ?? 'completed' };
  return stored as unknown as ResponseItem;
}

/**
 * A custom call or output as the function item it stands for (other items as they are): the call's
 * `input` becomes `{"input": …}` arguments, as the model wrote it.
 *
 * @example
 * asFunctionItem({ type: 'custom_tool_call', call_id: 'c', name: 'sql', input: 'SELECT 1' });
 * // { type: 'function_call', call_id: 'c', name: 'sql', arguments: '{"input":"SELECT 1"}' }
 */
export function asFunctionItem(item: ResponseItem): ResponseItem {
  const raw = item as ResponseItem | ResponseCustomToolCall | ResponseCustomToolCallOutput;
  if (raw.type === 'custom_tool_call')
    return {
      type: 'function_call',
      call_id: raw.call_id,
      name: raw.name,
      arguments: customArguments(raw.input),
    } as ResponseItem;
  if (raw.type === 'custom_tool_call_output')
    return { type: 'function_call_output', call_id: raw.call_id, output: raw.output } as ResponseItem;
  return item;
}
