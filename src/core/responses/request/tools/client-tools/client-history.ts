import type { ResponseItem } from 'openai/resources/responses/responses';
import {
  APPLY_PATCH_NAME,
  LOCAL_SHELL_NAME,
  namespacedName,
  SHELL_NAME,
  TOOL_SEARCH_NAME,
} from './client-tool-names';

/**
 * The client tools' items (issue 45) in the history, as the model met them: each call as a call
 * of its model-facing function (the arguments it wrote), each output as that function's result.
 * So the family's template renders them as its own tool calls and tool results, and the checks
 * that pair calls with outputs read them as function calls do. The items themselves are stored and
 * listed unchanged; only this view of them is translated.
 */

type FunctionCall = Extract<ResponseItem, { type: 'function_call' }>;
type FunctionCallOutput = Extract<ResponseItem, { type: 'function_call_output' }>;

/** The most characters of one command's stdout or stderr shown again to the model. */
export const MAX_SHELL_OUTPUT_CHARS = 16_000;

const call = (id: string, callId: string, name: string, args: unknown): FunctionCall => ({
  type: 'function_call',
  id,
  call_id: callId,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
  status: 'completed',
});

const output = (id: string, callId: string, name: string, text: string): FunctionCallOutput => ({
  type: 'function_call_output',
  id,
  call_id: callId,
  name,
  output: text,
  status: 'completed',
});

/** A cut string keeps its head and its tail: an error is most often at the end. */
function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n…(${text.length - max} characters cut)…\n${text.slice(-half)}`;
}

type ShellOutput = Extract<ResponseItem, { type: 'shell_call_output' }>['output'][number];

/** Each command's outcome, then its stdout and stderr (when there is any), one command after another. */
function shellResult(entries: readonly ShellOutput[], max: number | null | undefined): string {
  const limit = Math.min(max ?? MAX_SHELL_OUTPUT_CHARS, MAX_SHELL_OUTPUT_CHARS);
  const blocks = entries.map((e, i) => {
    const head = e.outcome.type === 'exit' ? `exit code ${e.outcome.exit_code}` : 'timed out';
    const lines = [`command ${i + 1}: ${head}`];
    if (e.stdout) lines.push(`stdout:\n${clipped(e.stdout, limit)}`);
    if (e.stderr) lines.push(`stderr:\n${clipped(e.stderr, limit)}`);
    return lines.join('\n');
  });
  return blocks.length ? blocks.join('\n\n') : '(no commands ran)';
}

/** What a tool_search found, as its tools' names and descriptions. */
function searchResult(tools: readonly { type: string; name?: unknown; description?: unknown }[]): string {
  if (tools.length === 0) return 'No tools found.';
  const lines = tools.map((t) => {
    const name = typeof t.name === 'string' ? t.name : t.type;
    return typeof t.description === 'string' ? `${name}: ${t.description}` : name;
  });
  return `Tools loaded:\n${lines.join('\n')}`;
}

/**
 * `item` as the function call or function call output the model met, or null when it is no client
 * tool's item (then it is read as it is).
 *
 * @example
 * asFunctionHistory({ type: 'shell_call', id: 'sh_1', call_id: 'call_1', action: { commands: ['ls'] }, … })
 * // → { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"commands":["ls"]}', … }
 */
export function asFunctionHistory(item: ResponseItem): FunctionCall | FunctionCallOutput | null {
  switch (item.type) {
    case 'shell_call': {
      const { commands, timeout_ms, max_output_length } = item.action;
      const args = {
        commands,
        ...(timeout_ms != null && { timeout_ms }),
        ...(max_output_length != null && { max_output_length }),
      };
      return call(item.id, item.call_id, SHELL_NAME, args);
    }
    case 'shell_call_output':
      return output(item.id, item.call_id, SHELL_NAME, shellResult(item.output, item.max_output_length));
    case 'apply_patch_call': {
      const { type, path } = item.operation;
      const args = 'diff' in item.operation ? { type, path, diff: item.operation.diff } : { type, path };
      return call(item.id, item.call_id, APPLY_PATCH_NAME, args);
    }
    case 'apply_patch_call_output': {
      const text = item.output ? `${item.status}: ${item.output}` : item.status;
      return output(item.id, item.call_id, APPLY_PATCH_NAME, text);
    }
    case 'local_shell_call': {
      const { type: _exec, ...args } = item.action;
      const shown = Object.fromEntries(Object.entries(args).filter(([, v]) => v != null));
      return call(item.id, item.call_id, LOCAL_SHELL_NAME, shown);
    }
    case 'local_shell_call_output':
      return output(`${item.id}_output`, item.id, LOCAL_SHELL_NAME, item.output);
    case 'tool_search_call': {
      const id = item.call_id ?? item.id;
      return call(item.id, id, TOOL_SEARCH_NAME, item.arguments ?? {});
    }
    case 'tool_search_output': {
      const text = searchResult(item.tools as { type: string }[]);
      const { call_id: _none, ...byName } = output(item.id, '', TOOL_SEARCH_NAME, text);
      // No call_id: it answers the oldest waiting tool_search call, as a nameless function output would.
      return item.call_id ? { ...byName, call_id: item.call_id } : byName;
    }
    case 'function_call':
      if (item.namespace === undefined) return null;
      return { ...item, name: namespacedName(item.namespace, item.name) };
    case 'function_call_output':
      if (item.namespace == null || item.name == null) return null;
      return { ...item, name: namespacedName(item.namespace, item.name) };
    default:
      return null;
  }
}
