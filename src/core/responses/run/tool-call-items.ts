/**
 * Which item a model's call becomes: a client tool's typed item (`shell_call`, `apply_patch_call`,
 * …), a `custom_tool_call` (its one `input` argument unwrapped), or a `function_call`. The engines
 * see all three as functions; the run's options say which names are which (issue 45).
 */
import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { customInput } from '../../../engine/custom-grammar';
import type { IdPrefix, RunOptions } from '../request/run-options';
import { clientCallItem, emitClientCall } from './client-call-events';
import { emitCustomToolCall } from './custom-call-events';
import { emitFunctionCall } from './function-call-events';

/** @example emitToolCall(opts, 'shell', '{"commands":["ls"]}', addItem, send, id) // a shell_call and its events */
export function emitToolCall(
  opts: Pick<RunOptions, 'clientCalls' | 'customTools'>,
  name: string,
  args: string,
  addItem: (item: ResponseOutputItem) => number,
  send: (event: Record<string, unknown>) => void,
  id: (prefix: IdPrefix) => string,
): void {
  const client = opts.clientCalls?.get(name);
  if (client) emitClientCall(clientCallItem(client, args, id), addItem, send);
  else if (opts.customTools?.has(name)) emitCustomToolCall(name, customInput(args), addItem, send, id);
  else emitFunctionCall(name, args, addItem, send, id);
}
