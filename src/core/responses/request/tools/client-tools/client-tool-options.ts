import { clip, invalidRequest } from '../../../../../common/api-error';
import { namespacedName, type Ref } from './client-tool-names';
import { type ClientTool, parseClientTool } from './client-tool-parse';
import { clientSpecs } from './client-tool-specs';

export { clientSpecs };

/**
 * How tool-options.ts takes the client tools (issue 45) into `tools` and `tool_choice`: which
 * entries they are, one of each type (namespaces one per name), the names they reserve, and the
 * tool a choice or an `allowed_tools` entry names. `{type:'shell'}` and `{type:'apply_patch'}` are
 * choices of their own (`ToolChoiceShell`, `ToolChoiceApplyPatch`); `local_shell`, `tool_search`
 * and namespaces are forced through `allowed_tools` with `mode: 'required'`, and a namespace's
 * function by `{type:'function', name:'<namespace>.<name>'}`.
 */

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
 * The model-facing name a forced choice of `t` calls: a single tool's, or for a namespace the
 * function `ref` names (`{type:'function', name}`).
 */
export function clientChoiceName(t: ClientTool, ref: Ref): string {
  if (t.type !== 'namespace') return (clientSpecs(t)[0] as { name: string }).name;
  return ref.namespace ? namespacedName(ref.namespace, ref.name as string) : (ref.name as string);
}
