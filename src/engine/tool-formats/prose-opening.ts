/**
 * How a reply that is prose may open, for formats whose calls are the whole reply (Llama 3.x): as
 * an xgrammar regex that refuses exactly the openings that make a call.
 */

/**
 * The regex a prose reply's first characters must match: whitespace, then anything that departs
 * from every call opening. For the `{` trigger a call opens `{"name"` (whitespace allowed after the
 * brace), as llama.cpp's Llama 3.x trigger (`\{\s*"name"\s*:`) and vLLM's llama3_json parser (an
 * object with `name` and `parameters`) read it: any other JSON value is a plain JSON answer, which
 * must stay possible with tools offered. Any other trigger (`<|python_tag|>`) opens a call whole.
 *
 * @example
 * proseOpening(['{', '<|python_tag|>']); // matches '{"answer": 42', '\nHi', '<b>'; not '{"name"', '<|python_tag|>'
 */
export function proseOpening(triggers: readonly string[]): string {
  const firsts = [...new Set(triggers.map((t) => t[0] as string))];
  const alternatives = [`[^\\s${firsts.map(classChar).join('')}]`];
  for (const t of triggers) {
    if (t === '{') alternatives.push(`\\{\\s*${departing('"name"', '\\s')}`);
    else if (t.length > 1) alternatives.push(`${literal(t[0] as string)}${departing(t.slice(1))}`);
  }
  return `\\s*(${alternatives.join('|')})`;
}

/**
 * A regex for text that starts like `word` and departs from it before its end, consuming through
 * the first character that differs (`extra`: characters also refused as the very first one).
 */
function departing(word: string, extra = ''): string {
  const chars = [...word];
  let out = '';
  for (let i = chars.length - 1; i >= 0; i--) {
    const c = chars[i] as string;
    const differ = `[^${classChar(c)}${i === 0 ? extra : ''}]`;
    out = out === '' ? differ : `(${differ}|${literal(c)}${out})`;
  }
  return out;
}

function classChar(c: string): string {
  return /[\\\]^\-[]/.test(c) ? `\\${c}` : c;
}

function literal(c: string): string {
  return /[.*+?()[\]{}|^$\\/]/.test(c) ? `\\${c}` : c;
}
