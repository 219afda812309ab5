import type { FunctionShellTool } from 'openai/resources/responses/responses';
import { clip, invalidRequest } from '../../../../../common/api-error';
import type { ClientTool } from './client-tool-parse';

/**
 * What every request needs to know of the client tools (issue 45), kept out of their lazily loaded
 * code (client-tool-load.ts): their types and the names the model calls them by, which names are
 * client calls, the function names they reserve, and the tool a choice names. Reading a client
 * tool's definition and the functions the model is shown for it load with the first request that
 * declares one.
 */

/** The `type`s client-tool-parse.ts parses. */
export const CLIENT_TOOL_TYPES: ReadonlySet<string> = new Set([
  'shell',
  'apply_patch',
  'local_shell',
  'namespace',
  'tool_search',
]);

export const SHELL_NAME = 'shell';
export const APPLY_PATCH_NAME = 'apply_patch';
export const LOCAL_SHELL_NAME = 'local_shell';
export const TOOL_SEARCH_NAME = 'tool_search';

/** The names a function tool may not take while the client tool that uses it is in the request. */
export const CLIENT_NAMES: Readonly<Record<string, string>> = {
  shell: SHELL_NAME,
  apply_patch: APPLY_PATCH_NAME,
  local_shell: LOCAL_SHELL_NAME,
  tool_search: TOOL_SEARCH_NAME,
};

/** What a call to a model-facing name becomes: which typed item, and for a namespace, which function. */
export type ClientCall =
  | { kind: 'shell'; environment: FunctionShellTool['environment'] }
  | { kind: 'apply_patch' }
  | { kind: 'local_shell' }
  | { kind: 'tool_search' }
  | { kind: 'namespaced'; namespace: string; name: string };

/** The model-facing name of `fn` in namespace `ns`. */
export function namespacedName(ns: string, fn: string): string {
  return `${ns}.${fn}`;
}

/**
 * Which model-facing names are client tools' calls, and what each becomes.
 *
 * @example
 * clientCallMap(tools).get('shell') // → { kind: 'shell', environment: { type: 'local' } }
 */
export function clientCallMap(tools: readonly { type: string }[]): Map<string, ClientCall> {
  const map = new Map<string, ClientCall>();
  for (const raw of tools) {
    const t = raw as ClientTool;
    switch (t.type) {
      case 'shell':
        map.set(SHELL_NAME, { kind: 'shell', environment: t.environment ?? null });
        break;
      case 'apply_patch':
      case 'local_shell':
      case 'tool_search':
        map.set(CLIENT_NAMES[t.type] as string, { kind: t.type });
        break;
      case 'namespace':
        for (const f of t.tools)
          map.set(namespacedName(t.name, f.name), { kind: 'namespaced', namespace: t.name, name: f.name });
        break;
    }
  }
  return map;
}

/** Whether `raw` is a client tool entry ({@link parseClientToolAt} reads it). */
export function isClientToolType(type: string): boolean {
  return CLIENT_TOOL_TYPES.has(type);
}

/**
 * A 400 for a function tool whose name a client tool in the same request takes (the model could
 * not tell which one it called).
 */
export function checkClientNames(tools: readonly { type: string; name?: string }[]): void {
  const taken = new Set(tools.flatMap((t) => (t.type in CLIENT_NAMES ? [CLIENT_NAMES[t.type]] : [])));
  if (taken.size === 0) return;
  const clash = tools.findIndex((t) => t.type === 'function' && taken.has(t.name as string));
  if (clash < 0) return;
  const name = tools[clash]?.name as string;
  throw invalidRequest(
    `tools[${clash}].name`,
    `The function name '${clip(name)}' is reserved for the ${name} tool in this request: rename the function.`,
    'invalid_value',
  );
}

export type Ref = { type: string; name?: string | null; namespace?: string | null };

/**
 * The client tool a `tool_choice` or an `allowed_tools` entry names: `{type:'shell'}` and the
 * other single tools by type, `{type:'namespace', name}` a namespace, and `{type:'function', name,
 * namespace}` (or `name: '<namespace>.<function>'`) the namespace that holds that function.
 */
export function findClientTool(tools: readonly { type: string }[], ref: Ref): ClientTool | undefined {
  const clients = tools.filter((t): t is ClientTool => isClientToolType(t.type));
  if (ref.type === 'namespace') return clients.find((t) => t.type === 'namespace' && t.name === ref.name);
  if (ref.type === 'function' && ref.name) {
    const full = ref.namespace ? namespacedName(ref.namespace, ref.name) : ref.name;
    return clients.find(
      (t) => t.type === 'namespace' && t.tools.some((f) => namespacedName(t.name, f.name) === full),
    );
  }
  if (ref.type === 'tool_search' || ref.type in CLIENT_NAMES) return clients.find((t) => t.type === ref.type);
  return undefined;
}
