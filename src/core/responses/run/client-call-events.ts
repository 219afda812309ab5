import type {
  ResponseApplyPatchToolCall,
  ResponseFunctionShellToolCall,
  ResponseFunctionToolCall,
  ResponseOutputItem,
  ResponseToolSearchCall,
} from 'openai/resources/responses/responses';
import type { ClientCall } from '../request/tools/client-tools/client-tool-names';

/**
 * A client tool's call (issue 45) as the typed item OpenAI returns, and its stream in OpenAI's
 * order: `output_item.added` (in progress), the item's own events (a shell call's commands:
 * `shell_call_command.added`, `.delta`, `.done` for each; a namespaced function's arguments as a
 * function call's), then `output_item.done`. Items without events of their own (`apply_patch_call`,
 * `local_shell_call`, `tool_search_call`: the `openai` types give them none) are whole at `added`.
 */

/** An output item a client tool's call becomes. */
export type ClientCallItem =
  | ResponseFunctionShellToolCall
  | ResponseApplyPatchToolCall
  | Extract<ResponseOutputItem, { type: 'local_shell_call' }>
  | ResponseToolSearchCall
  | ResponseFunctionToolCall;

/** The ids a call item needs: its own (by its type's prefix) and the call's. */
export type CallIds = (prefix: 'fc' | 'call' | 'sh' | 'apc' | 'lsh' | 'tsc') => string;

/** The model's arguments as an object; text that is not a JSON object reads as `{}` (a strict grammar never writes it). */
function argsObject(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
const intOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The completed item for a call of `call`'s kind with the model's `args`.
 *
 * @example
 * clientCallItem({ kind: 'shell', environment: null }, '{"commands":["ls"]}', newId)
 * // → { type: 'shell_call', id: 'sh_…', call_id: 'call_…', action: { commands: ['ls'], timeout_ms: null, max_output_length: null }, environment: null, status: 'completed' }
 */
export function clientCallItem(call: ClientCall, args: string, ids: CallIds): ClientCallItem {
  const a = argsObject(args);
  switch (call.kind) {
    case 'shell':
      return {
        type: 'shell_call',
        id: ids('sh'),
        call_id: ids('call'),
        action: {
          commands: strings(a.commands),
          timeout_ms: intOrNull(a.timeout_ms),
          max_output_length: intOrNull(a.max_output_length),
        },
        environment: call.environment?.type === 'local' ? { type: 'local' } : null,
        status: 'completed',
      };
    case 'apply_patch': {
      const path = String(a.path ?? '');
      const type = a.type === 'create_file' || a.type === 'delete_file' ? a.type : 'update_file';
      const operation: ResponseApplyPatchToolCall['operation'] =
        type === 'delete_file' ? { type, path } : { type, path, diff: String(a.diff ?? '') };
      return {
        type: 'apply_patch_call',
        id: ids('apc'),
        call_id: ids('call'),
        operation,
        status: 'completed',
      };
    }
    case 'local_shell': {
      const env = typeof a.env === 'object' && a.env !== null ? (a.env as Record<string, unknown>) : {};
      return {
        type: 'local_shell_call',
        id: ids('lsh'),
        call_id: ids('call'),
        action: {
          type: 'exec',
          command: strings(a.command),
          env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
          timeout_ms: intOrNull(a.timeout_ms),
          user: strOrNull(a.user),
          working_directory: strOrNull(a.working_directory),
        },
        status: 'completed',
      };
    }
    case 'tool_search':
      return {
        type: 'tool_search_call',
        id: ids('tsc'),
        call_id: ids('call'),
        arguments: a,
        execution: 'client',
        status: 'completed',
      };
    case 'namespaced':
      return {
        type: 'function_call',
        id: ids('fc'),
        call_id: ids('call'),
        name: call.name,
        namespace: call.namespace,
        arguments: args,
        status: 'completed',
      };
  }
}

/**
 * Streams a completed client call item (a live one, or a stored one replayed) in OpenAI's order.
 *
 * @example
 * emitClientCall(item, (i) => run.addItem(i), send);
 */
export function emitClientCall(
  done: ClientCallItem,
  addItem: (item: ResponseOutputItem) => number,
  send: (event: Record<string, unknown>) => void,
): void {
  const item = structuredClone(done);
  item.status = 'in_progress';
  if (item.type === 'shell_call') item.action.commands = [];
  if (item.type === 'function_call') item.arguments = '';
  const outputIndex = addItem(item as ResponseOutputItem);
  if (done.type === 'shell_call') {
    done.action.commands.forEach((command, commandIndex) => {
      const at = { output_index: outputIndex, command_index: commandIndex };
      send({ type: 'response.shell_call_command.added', ...at, command: '' });
      send({ type: 'response.shell_call_command.delta', ...at, delta: command });
      send({ type: 'response.shell_call_command.done', ...at, command });
    });
  } else if (done.type === 'function_call') {
    const at = { item_id: done.id as string, output_index: outputIndex };
    send({ type: 'response.function_call_arguments.delta', ...at, delta: done.arguments });
    send({
      type: 'response.function_call_arguments.done',
      ...at,
      arguments: done.arguments,
      name: done.name,
    });
  }
  Object.assign(item, structuredClone(done));
  send({ type: 'response.output_item.done', output_index: outputIndex, item: structuredClone(done) });
}

/** The stored output item as a client call this module replays, or null for any other item. */
export function asClientCallItem(item: ResponseOutputItem): ClientCallItem | null {
  const client =
    item.type === 'shell_call' ||
    item.type === 'apply_patch_call' ||
    item.type === 'local_shell_call' ||
    item.type === 'tool_search_call' ||
    (item.type === 'function_call' && item.namespace !== undefined);
  return client ? (item as ClientCallItem) : null;
}
