import { clip, invalidRequest } from '../../../../../common/api-error';
import { CLIENT_TOOL_TYPES, type ClientTool, parseClientTool } from './client-tool-parse';
import { CLIENT_NAMES, clientSpecs, namespacedName } from './client-tool-specs';

/**
 * How tool-options.ts takes the client tools (issue 45) into `tools` and `tool_choice`: which
 * entries they are, one of each type (namespaces one per name), the names they reserve, and the
 * tool a choice or an `allowed_tools` entry names. `{type:'shell'}` and `{type:'apply_patch'}` are
 * choices of their own (`ToolChoiceShell`, `ToolChoiceApplyPatch`); `local_shell`, `tool_search`
 * and namespaces are forced through `allowed_tools` with `mode: 'required'`, and a namespace's
 * function by `{type:'function', name:'<namespace>.<name>'}`.
 */

/** Whether `raw` is a client tool entry ({@link parseClientToolAt} reads it). */
export function isClientToolType(type: string): boolean {
  return CLIENT_TOOL_TYPES.has(type);
}

/**
 * `tools[i]`, a client tool: checked, and refused when an entry before it is the same tool.
 *
 * @example
 * parseClientToolAt(body.tools, 0) // → { type: 'apply_patch' }
 */
export function parseClientToolAt(all: readonly { type: string; name?: unknown }[], i: number): ClientTool {
  const raw = all[i] as { type: string; name?: unknown };
  const same =
    raw.type === 'namespace'
      ? all.findIndex((t) => t.type === 'namespace' && t.name === raw.name)
      : all.findIndex((t) => t.type === raw.type);
  if (same !== i)
    throw invalidRequest(
      raw.type === 'namespace' ? `tools[${i}].name` : `tools[${i}].type`,
      raw.type === 'namespace'
        ? `Duplicate namespace '${clip(String(raw.name))}'.`
        : `Only one ${raw.type} tool may be given.`,
      'invalid_value',
    );
  return parseClientTool(raw, i);
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

type Ref = { type: string; name?: string | null; namespace?: string | null };

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

/**
 * The model-facing name a forced choice of `t` calls: a single tool's, or for a namespace the
 * function `ref` names (`{type:'function', name}`).
 */
export function clientChoiceName(t: ClientTool, ref: Ref): string {
  if (t.type !== 'namespace') return (clientSpecs(t)[0] as { name: string }).name;
  return ref.namespace ? namespacedName(ref.namespace, ref.name as string) : (ref.name as string);
}
