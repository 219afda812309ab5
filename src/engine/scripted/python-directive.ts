import type { GenerateRequest } from '../types';

/** The tool the `!python` directive calls: the name the core offers its hosted code_interpreter by. */
export const PYTHON_TOOL = 'python';

/**
 * The code of the next `!python <code>` directive still to run: each directive in the last user
 * text is one call (its code runs to the next `!python` or the end, newlines kept), one per pass,
 * in order, while a `python` tool is offered; null once every one has its result after that
 * message (then the model answers), or when none is offered.
 *
 * @example
 * nextPythonCode(req, '!python print(1)') // → 'print(1)'
 */
export function nextPythonCode(req: GenerateRequest, text: string): string | null {
  if (req.toolChoice === 'none' || !req.tools.some((t) => t.name === PYTHON_TOOL)) return null;
  const codes = text
    .split(/(?:^|\s)!python\b[ \t]?/)
    .slice(1)
    .map((c) => c.replace(/\s+$/, ''));
  const lastUser = req.messages.findLastIndex((m) => m.role === 'user');
  const ran = req.messages
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool' && m.name === PYTHON_TOOL).length;
  return codes[ran] ?? null;
}

/** The longest piece a call's arguments stream in: a token's worth, as a model writes them. */
const PIECE_CHARS = 8;

/**
 * A call's arguments (JSON text) in the pieces the scripted model streams them in: each
 * whitespace-led word, cut to {@link PIECE_CHARS}; they join to `args`.
 *
 * @example
 * argumentPieces('{"code":"print(1)"}') // → ['{"code":', '"print(1', ')"}']
 */
export function argumentPieces(args: string): string[] {
  const pieces: string[] = [];
  for (const word of args.match(/\s*\S+|\s+$/g) ?? [])
    for (let i = 0; i < word.length; i += PIECE_CHARS) pieces.push(word.slice(i, i + PIECE_CHARS));
  return pieces;
}
