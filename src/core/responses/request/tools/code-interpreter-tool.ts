import type {
  ResponseCodeInterpreterToolCall,
  ResponseItem,
  Tool,
} from 'openai/resources/responses/responses';
import * as z from 'zod/mini';
import { invalidRequest } from '../../../../common/api-error';
import type { ChatMessage, FunctionToolSpec } from '../../../../engine/types';
import {
  containerFileIds,
  containerMemoryLimit,
  containerNetworkPolicy,
} from '../../../containers/container-params';
import type { PythonBackend } from '../../../hosted';
import { parseOrThrow } from '../../../validation/params';

/**
 * `code_interpreter`'s two faces (as hosted-tools.ts has them for `file_search`). On the wire, the
 * request's `{type:'code_interpreter', container}` entry, checked here and echoed as sent. To the
 * model, `python(code: string)` in its family's native tool section; the run's loop runs it in the
 * response's container.
 */

/** The request's `code_interpreter` tool, as the `openai` package types it. */
export type CodeInterpreterTool = Tool.CodeInterpreter;

/** The name the model calls `code_interpreter` by. A function tool of the same name is refused. */
export const PYTHON_NAME = 'python';

/** `python(code: string)`, as the model sees it. */
export const PYTHON_SPEC: FunctionToolSpec = {
  name: PYTHON_NAME,
  description:
    'Run Python 3 code in a sandbox and get its printed output. State persists between calls. Files in /mnt/data are kept; write images there as PNG to show them. There is no network access, and only the standard library is installed.',
  parameters: {
    type: 'object',
    properties: { code: { type: 'string', description: 'The Python code to run.' } },
    required: ['code'],
    additionalProperties: false,
  },
  strict: true,
};

const autoContainer = z.strictObject({
  type: z.literal('auto'),
  file_ids: z.optional(containerFileIds),
  memory_limit: z.nullish(containerMemoryLimit),
  network_policy: z.optional(containerNetworkPolicy),
});

const codeInterpreterSchema = z.strictObject({
  type: z.literal('code_interpreter'),
  container: z.union([z.string().check(z.minLength(1)), autoContainer]),
});

/**
 * Checks a `code_interpreter` tool entry (`tools[i]`) and returns it as a response echoes it. A
 * `network_policy` other than `disabled` is a 400 by name (the sandbox has no network); `file_ids`
 * are refused too, until containers can take files.
 *
 * @example
 * parseCodeInterpreterTool({ type: 'code_interpreter', container: { type: 'auto' } }, 0)
 */
export function parseCodeInterpreterTool(raw: unknown, i: number): CodeInterpreterTool {
  const t = parseOrThrow(codeInterpreterSchema, raw, ['tools', i]);
  if (typeof t.container !== 'string') {
    if (t.container.network_policy && t.container.network_policy.type !== 'disabled')
      throw invalidRequest(
        `tools[${i}].container.network_policy`,
        "Network policy 'allowlist' is not supported by intab: the Python sandbox has no network. Use {type: 'disabled'}.",
        'unsupported_value',
      );
    if (t.container.file_ids?.length)
      throw invalidRequest(
        `tools[${i}].container.file_ids`,
        'file_ids are not supported by intab yet: the code cannot read uploaded files.',
        'unsupported_value',
      );
  }
  return t as CodeInterpreterTool;
}

/** What the run's loop needs to serve `code_interpreter`. */
export interface CodeInterpreterPlan {
  tool: CodeInterpreterTool;
  /**
   * The container the response's calls run in. A named one is checked on arrival; `auto` is made
   * (or the chain's reused) at the first call, so a response that never runs Python makes none.
   */
  container(): string;
  /** `include: ['code_interpreter_call.outputs']`. */
  includeOutputs: boolean;
  /** Gets the container's sandbox loading before the first call (the run calls it as it starts). */
  prewarm(): void;
}

/**
 * The request's `code_interpreter` tool, with its container, when the model may call it (null
 * else). `{type:'auto'}` reuses the container of the chain's last `code_interpreter_call` while it
 * lives, else starts one; a container id must name a live one. No backend: a 400 on the tool.
 */
export function planCodeInterpreter(
  tools: readonly { type: string }[],
  allowed: readonly { type: string }[] | null,
  include: ReadonlySet<string>,
  backend: PythonBackend | undefined,
  history: readonly ResponseItem[],
): CodeInterpreterPlan | null {
  const i = tools.findIndex((t) => t.type === 'code_interpreter');
  if (i < 0) return null;
  const tool = tools[i] as CodeInterpreterTool;
  if (!backend)
    throw invalidRequest(
      `tools[${i}].type`,
      'code_interpreter is not available here: this server has no Python sandbox.',
      'unsupported_value',
    );
  if (!allowed?.some((t) => t.type === 'code_interpreter')) return null;
  const param = `tools[${i}].container`;
  const last = history.findLast((it) => it.type === 'code_interpreter_call');
  const previous = last?.type === 'code_interpreter_call' ? last.container_id : null;
  let id = typeof tool.container === 'string' ? backend.containerFor(tool.container, param, null) : null;
  if (id === null) backend.checkAuto?.(param, previous);
  return {
    tool,
    container: () => {
      id ??= backend.containerFor({ type: 'auto' }, param, previous);
      return id;
    },
    includeOutputs: include.has('code_interpreter_call.outputs'),
    prewarm: () => backend.prewarm?.(id ?? previous),
  };
}

/** A `code_interpreter_call` sent back as history (the Agents SDK resends a run's items): kept as it came. */
export const codeInterpreterCallItem = z.strictObject({
  type: z.literal('code_interpreter_call'),
  id: z.string().check(z.minLength(1)),
  code: z.nullable(z.string()),
  container_id: z.string(),
  outputs: z.nullable(
    z.array(
      z.union([
        z.strictObject({ type: z.literal('logs'), logs: z.string() }),
        z.strictObject({ type: z.literal('image'), url: z.string() }),
      ]),
    ),
  ),
  status: z.enum(['in_progress', 'completed', 'incomplete', 'interpreting', 'failed']),
});

/**
 * A past `code_interpreter_call` as the model met it: its `python` call, then what it printed (the
 * logs kept with `include`; else a note that they were not kept).
 *
 * @example
 * messages.push(...pastPythonTurn(item, (m) => m));
 */
export function pastPythonTurn(
  item: ResponseCodeInterpreterToolCall,
  withReasoning: (m: ChatMessage) => ChatMessage,
): ChatMessage[] {
  const call = {
    id: item.id,
    type: 'function' as const,
    function: { name: PYTHON_NAME, arguments: JSON.stringify({ code: item.code ?? '' }) },
  };
  const logs = (item.outputs ?? []).flatMap((o) => (o.type === 'logs' ? [o.logs] : []));
  const images = (item.outputs ?? []).filter((o) => o.type === 'image').length;
  let content =
    item.outputs === null ? `(The call ended ${item.status}; its output was not kept.)` : logs.join('');
  if (images > 0) content += `\n(${images} image${images > 1 ? 's' : ''} shown to the user.)`;
  return [
    withReasoning({ role: 'assistant', content: null, tool_calls: [call] }),
    {
      role: 'tool',
      tool_call_id: item.id,
      name: PYTHON_NAME,
      content: content === '' ? '(no output)' : content,
    },
  ];
}
