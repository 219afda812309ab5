/**
 * Prose under `tool_choice: auto` as GBNF: any text that does not open like a call, the llama.cpp
 * counterpart of web-llm's prose opening (`tool-formats/prose-opening.ts`). Only a real call
 * opening is refused, never a first character: Phi-4's `functools[{` leaves "from x import y"
 * free, Qwen's `<tool_call>\n` leaves "Use `<tool_call>` like this." free.
 */

import { callOpenings } from '../../tool-formats/structural-tag';
import type { ToolFormat } from '../../tool-formats/types';
import type { FunctionToolSpec } from '../../types';
import { type CodeRange, type GbnfBuilder, gbnfClass, gbnfLiteral } from './gbnf';
import { openingFreeRule } from './opening-free-text';

/** Whitespace a reply may open with before its first word (the parsers trim it). */
const SPACE: readonly CodeRange[] = [
  [0x09, 0x0a],
  [0x0d, 0x0d],
  [0x20, 0x20],
];

/**
 * Where a call opens, for the grammar that refuses it in prose and the parser that reads calls
 * only there. Formats whose calls are the whole reply (Llama 3.x) open on their triggers, `{`
 * meaning `{"name"` (see {@link proseRule}); the others on each trigger and the next character of
 * the tags it opens, as web-llm's structural tag has them.
 *
 * @example
 * wllamaCallOpenings(hermesFormat, tools, true); // ['<tool_call>\n']
 */
export function wllamaCallOpenings(
  format: ToolFormat,
  tools: FunctionToolSpec[],
  parallel: boolean,
): string[] {
  return format.leading ? [...format.triggers] : callOpenings(format, tools, parallel);
}

/**
 * The rule for prose: optional whitespace, then text that departs from every call opening before
 * its end (or ends first). For a `{` trigger the opening is `{`, whitespace, `"name"`, as llama.cpp's
 * Llama 3.x trigger and vLLM's llama3_json parser read it, so a plain JSON answer stays possible.
 * `others`: openings of the reply's other rules that prose must not take either (the think block a
 * reply may open with: prose that opened `[THINK]` would cover the block and every call after it,
 * which the reader then takes as reasoning and calls no grammar held).
 *
 * @example
 * proseRule(g, phi4Format, tools, false); // prose ::= [\t\n\r ]* (…"f" prose-1 …)
 */
export function proseRule(
  g: GbnfBuilder,
  format: ToolFormat,
  tools: FunctionToolSpec[],
  parallel: boolean,
  others: readonly string[] = [],
): string {
  const openings = wllamaCallOpenings(format, tools, parallel);
  if (!format.leading) {
    // The reader takes these calls wherever they open, so prose holds no opening anywhere, and
    // calls after text are the call rule's (see `opening-free-text.ts`).
    const free = openingFreeRule(g, [...openings, ...others], SPACE);
    return g.add('prose', `${gbnfClass(SPACE)}* ${free}`);
  }
  const root = trie([...openings.filter((o) => !(format.leading && o === '{')), ...others]);
  const special = new Map<string, string>();
  if (format.leading && openings.includes('{')) {
    // `{` then whitespace, then anything but `"name"`.
    const name = departing(g, trie(['"name"']), SPACE);
    special.set('{', `${gbnfLiteral('{')} ${gbnfClass(SPACE)}* ${name}`);
  }
  const first = alternatives(g, root, SPACE, special);
  return g.add('prose', `${gbnfClass(SPACE)}* (${first.join(' | ')})`);
}

interface Trie {
  /** A whole opening ends here: text that reaches this node is a call. */
  end: boolean;
  next: Map<string, Trie>;
}

function trie(words: readonly string[]): Trie {
  const root: Trie = { end: false, next: new Map() };
  for (const word of words) {
    let node = root;
    for (const c of word) {
      let child = node.next.get(c);
      if (!child) {
        child = { end: false, next: new Map() };
        node.next.set(c, child);
      }
      node = child;
    }
    node.end = true;
  }
  return root;
}

/**
 * The ways text can go on from `node` and depart from every opening: a character no opening takes
 * next (nor one of `extra`), then anything; or the next character of an opening that is not yet
 * whole, then onwards from there. `special` replaces the branch of a first character.
 */
function alternatives(
  g: GbnfBuilder,
  node: Trie,
  extra: readonly CodeRange[],
  special: ReadonlyMap<string, string> = new Map(),
): string[] {
  const taken: CodeRange[] = [...extra];
  const out: string[] = [];
  for (const [c, child] of [...node.next].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const code = c.codePointAt(0) as number;
    taken.push([code, code]);
    const own = special.get(c);
    if (own !== undefined) out.push(own);
    else if (!child.end) out.push(`${gbnfLiteral(c)} ${departing(g, child, [])}`);
  }
  for (const c of special.keys()) {
    if (node.next.has(c)) continue;
    const code = c.codePointAt(0) as number;
    taken.push([code, code]);
    out.push(special.get(c) as string);
  }
  return [`${gbnfClass(taken, true)} .*`, ...out];
}

/** A rule for text past a proper prefix of an opening: it may end here, or depart. */
function departing(g: GbnfBuilder, node: Trie, extra: readonly CodeRange[]): string {
  return g.add('prose-rest', `"" | ${alternatives(g, node, extra).join(' | ')}`);
}
