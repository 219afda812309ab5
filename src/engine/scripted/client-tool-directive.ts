import type { GenerateRequest } from '../types';

/**
 * The scripted model's directives for the client tools (issue 45), so an app's own tests can drive
 * them without a model. Each names the model-facing function the core offers the tool by:
 *
 * - `!shell <command>`: a `shell` call; every `!shell` of the message is one command of that call.
 * - `!apply_patch <create_file|update_file|delete_file> <path>` then, on the next lines, the diff
 *   (to the next directive or the end): one `apply_patch` call per directive, one per pass.
 * - `!local_shell <program> <args…>`: one `local_shell` call per directive (arguments split at spaces).
 * - `!tool_search <query>`: one client `tool_search` call per directive, with `{query}`.
 * - `!call <name> <json-args>`: a call to any offered function by its model-facing name, such as a
 *   namespace's `crm.get_customer`; one per directive.
 *
 * Like `!python`, a directive runs once its tool is offered and until its output is in the history
 * after the last user message; then the model answers with what the tool returned.
 */

type Call = { name: string; arguments: string };

/** The directives, in their model-facing tool's name; `!shell` is read as one call, apart. */
const DIRECTIVE = /(?:^|\n|[ \t])!(apply_patch|local_shell|tool_search|call)\b[ \t]*/;

/**
 * The next client tool call the last user text asks for, or null.
 *
 * @example
 * nextClientCall(req, '!shell ls -la') // → { name: 'shell', arguments: '{"commands":["ls -la"]}' }
 */
export function nextClientCall(req: GenerateRequest, text: string): Call | null {
  if (req.toolChoice === 'none') return null;
  const offered = new Set(req.tools.map((t) => t.name));
  const lastUser = req.messages.findLastIndex((m) => m.role === 'user');
  const answered = req.messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
  const ran = (name: string) => answered.filter((m) => m.name === name).length;
  const commands = text
    .split(/(?:^|\s)!shell\b[ \t]*/)
    .slice(1)
    .map((c) => c.split(/\n|\s!\w/)[0]?.trim() ?? '')
    .filter((c) => c !== '');
  if (commands.length > 0 && offered.has('shell') && ran('shell') === 0)
    return { name: 'shell', arguments: JSON.stringify({ commands }) };
  const parts = text.split(DIRECTIVE);
  // split() with one group: text, name, body, name, body, …
  const seen = new Map<string, number>();
  for (let k = 1; k + 1 < parts.length; k += 2) {
    const kind = parts[k] as string;
    const body = (parts[k + 1] as string).replace(/\s+$/, '');
    const call = directiveCall(kind, body);
    if (!call || !offered.has(call.name)) continue;
    const nth = seen.get(call.name) ?? 0;
    seen.set(call.name, nth + 1);
    if (nth >= ran(call.name)) return call;
  }
  return null;
}

function directiveCall(kind: string, body: string): Call | null {
  switch (kind) {
    case 'apply_patch': {
      const [head = '', ...lines] = body.split('\n');
      const [type = '', path = ''] = head.trim().split(/\s+/);
      if (!['create_file', 'update_file', 'delete_file'].includes(type) || path === '') return null;
      const diff = lines.join('\n');
      const args =
        type === 'delete_file' ? { type, path } : { type, path, diff: diff === '' ? '' : `${diff}\n` };
      return { name: 'apply_patch', arguments: JSON.stringify(args) };
    }
    case 'local_shell': {
      const command = body.split('\n')[0]?.trim().split(/\s+/).filter(Boolean) ?? [];
      return command.length ? { name: 'local_shell', arguments: JSON.stringify({ command }) } : null;
    }
    case 'tool_search':
      return { name: 'tool_search', arguments: JSON.stringify({ query: body.split('\n')[0]?.trim() ?? '' }) };
    default: {
      const m = /^(\S+)\s*([\s\S]*)$/.exec(body);
      if (!m) return null;
      const args = (m[2] as string).trim() || '{}';
      return { name: m[1] as string, arguments: args };
    }
  }
}
