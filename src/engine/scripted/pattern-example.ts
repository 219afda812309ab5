import { type Node, parseRegex } from '../wllama/grammar/regex-parser';

/** The longest example {@link patternExample} writes. */
const MAX_EXAMPLE_CHARS = 4096;

/**
 * The scripted model's deterministic string for a `pattern` (how it fills a custom tool's `input`,
 * or any string property with a pattern): each alternation's first option, each repetition its
 * minimum, each class its first printable member. Null when the pattern cannot be read, or its
 * example would pass {@link MAX_EXAMPLE_CHARS} (the property's name is written then, as without one).
 *
 * @example
 * patternExample('^(?:[a-z]+@(?:x|y)\\.com)$'); // 'a@x.com'
 */
export function patternExample(pattern: string): string | null {
  let tree: Node;
  try {
    tree = parseRegex(pattern);
  } catch {
    return null;
  }
  let out = '';
  // A stack of nodes still to write, and how many more copies of each; a loop, not recursion.
  const stack: Array<{ node: Node; times: number }> = [{ node: tree, times: 1 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: Node; times: number };
    if (top.times === 0) {
      stack.pop();
      continue;
    }
    top.times -= 1;
    const n = top.node;
    if (n.kind === 'seq')
      for (let i = n.items.length - 1; i >= 0; i--) stack.push({ node: n.items[i] as Node, times: 1 });
    else if (n.kind === 'alt') stack.push({ node: n.options[0] as Node, times: 1 });
    else if (n.kind === 'repeat') stack.push({ node: n.node, times: n.min });
    else if (n.kind === 'char') out += n.ch;
    else if (n.kind === 'any') out += 'a';
    else if (n.kind === 'class') {
      const ch = classMember(n.ranges, n.negate);
      if (ch === null) return null;
      out += ch;
    }
    if (out.length > MAX_EXAMPLE_CHARS) return null;
  }
  return out;
}

/** A printable member of the class (a letter or digit where it has one), or null if none is found. */
function classMember(ranges: ReadonlyArray<readonly [number, number]>, negate: boolean): string | null {
  const has = (cp: number) => ranges.some(([lo, hi]) => lo <= cp && cp <= hi);
  if (!negate) {
    for (const cp of [0x61, 0x41, 0x30]) if (has(cp)) return String.fromCodePoint(cp);
    const first = ranges.find(([, hi]) => hi >= 0x20);
    return first ? String.fromCodePoint(Math.max(first[0], 0x20)) : null;
  }
  for (let cp = 0x61; cp < 0x7f; cp++) if (!has(cp)) return String.fromCodePoint(cp);
  for (let cp = 0x20; cp < 0x61; cp++) if (!has(cp)) return String.fromCodePoint(cp);
  return null;
}
