import type { GenerateRequest } from '../types';

/**
 * The scripted model's `!custom <tool> <input>` directive (issue 45): a call to the `custom` tool
 * `<tool>` whose input is the rest of the directive (to the next `!custom` or the end, newlines
 * kept), written as the engines write a custom call (`{"input": …}`; the core makes it a
 * `custom_tool_call`). Each directive in the last user text is one call, one per pass, in order;
 * once every one has its result after that message, the model answers.
 *
 * @example
 * nextCustomCall(req, '!custom sql SELECT 1') // → { name: 'sql', arguments: '{"input":"SELECT 1"}' }
 */
export function nextCustomCall(
  req: GenerateRequest,
  text: string,
): { name: string; arguments: string } | null {
  if (req.toolChoice === 'none' || !/(?:^|\s)!custom\s/.test(text)) return null;
  const calls = text
    .split(/(?:^|\s)!custom\s+/)
    .slice(1)
    .map((piece) => /^(\S+)[ \t]?([\s\S]*?)\s*$/.exec(piece));
  const names = new Set(calls.map((m) => m?.[1]));
  const lastUser = req.messages.findLastIndex((m) => m.role === 'user');
  const ran = req.messages.slice(lastUser + 1).filter((m) => m.role === 'tool' && names.has(m.name)).length;
  const next = calls[ran];
  if (!next || !req.tools.some((t) => t.name === next[1])) return null;
  return { name: next[1] as string, arguments: JSON.stringify({ input: next[2] ?? '' }) };
}
