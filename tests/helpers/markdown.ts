/**
 * Just enough Markdown for the docs' checks: fenced code blocks with the line before each (which
 * names the file the block shows), relative links, and the anchors GitHub gives headings. Each
 * function is one pass over the text.
 */

export interface CodeBlock {
  /** The fence's info string: `ts`, `sh`, `json`… */
  lang: string;
  /** The block's text, without its fences. */
  text: string;
  /** The last non-empty line before the opening fence (the block's caption). */
  caption: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/**
 * The fenced code blocks of `markdown` (fences of three backticks at the start of a line).
 *
 * @example
 * codeBlocks('`a.ts`:\n\n```ts\nx\n```\n'); // → [{ lang: 'ts', text: 'x', caption: '`a.ts`:', line: 3 }]
 */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let caption = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const open = /^```(\S*)\s*$/.exec(line);
    if (!open) {
      if (line.trim()) caption = line;
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    blocks.push({ lang: open[1] ?? '', text: body.join('\n'), caption, line: start + 1 });
    caption = '';
  }
  return blocks;
}

/**
 * The targets of the inline links in `text` (`[label](target)`), images included.
 *
 * @example
 * links('see [the API](docs/api.md#routes)'); // → ['docs/api.md#routes']
 */
export function links(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
}

/** Whether a link target is a URL (or a mail address) rather than a path in the repository. */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

/**
 * The anchors GitHub gives the headings of `markdown`, outside code blocks: the heading's text
 * lower-cased, Markdown and punctuation dropped, spaces as hyphens; a repeated one gets `-1`, `-2`…
 *
 * @example
 * anchors('## Use it in your app (Vite)\n## The `scripted` model'); // → {'use-it-in-your-app-vite', 'the-scripted-model'}
 */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = (heading[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}
