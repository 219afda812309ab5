import type { GenerateRequest } from '../types';

/**
 * The scripted model's `!mcp <label> <tool> <json-args>` directive: a call to a tool of a remote
 * MCP server, as the core offers it (the tool's own name, or `<label>__<tool>` when that name was
 * taken). Each directive in the last user text is one call, one per pass, in order; once every one
 * has its result after that message, the model answers.
 *
 * @example
 * nextMcpCall(req, '!mcp docs echo {"text":"hi"}') // → { name: 'echo', arguments: '{"text":"hi"}' }
 */
export function nextMcpCall(req: GenerateRequest, text: string): { name: string; arguments: string } | null {
  if (req.toolChoice === 'none' || !/(?:^|\s)!mcp\s/.test(text)) return null;
  const calls = text
    .split(/(?:^|\s)!mcp\s+/)
    .slice(1)
    .map((piece) => {
      const m = /^(\S+)\s+(\S+)\s*([\s\S]*)$/.exec(piece.trim());
      return m ? { label: m[1] ?? '', tool: m[2] ?? '', args: (m[3] ?? '').trim() || '{}' } : null;
    });
  const lastUser = req.messages.findLastIndex((m) => m.role === 'user');
  const ran = req.messages
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool' && m.name !== 'file_search').length;
  const next = calls[ran];
  if (!next) return null;
  const offered = req.tools.find((t) => t.name === next.tool || t.name === `${next.label}__${next.tool}`);
  return offered ? { name: offered.name, arguments: next.args } : null;
}
