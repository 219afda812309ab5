/**
 * Text that holds none of a set of words anywhere, as GBNF: the prose of a reply whose calls may
 * follow text (Hermes, Qwen, Ministral, Phi-4, Gemma). Their readers take a call opening wherever it
 * comes, so prose that could hold one would carry a call the grammar never held to its schema
 * (`Sure.[TOOL_CALLS]get_weather[ARGS]{"city": 12}`). With the words refused inside prose, a call
 * after text can only be the grammar's call rule.
 *
 * The rules are the states of the words' Aho–Corasick automaton: one rule per trie node that no word
 * ends at (nor at any of its suffixes), each with one branch per character some word uses and one
 * class for every other character. So the grammar has at most (total length of the words + 1) rules
 * of at most (distinct characters of the words + 2) branches, and it is deterministic: llama.cpp
 * keeps a single stack for it, whatever the text's length.
 */

import { type CodeRange, type GbnfBuilder, gbnfClass, gbnfLiteral } from './gbnf';

interface Node {
  next: Map<string, Node>;
  /** A word ends here or at a suffix of the path here: reaching it means the text holds a word. */
  hit: boolean;
  fail: Node | null;
  rule: string;
}

/**
 * The name of a rule for text that starts with a character outside `lead` (unless the text is
 * empty, when `allowEmpty`) and never holds one of `words`. `lead` are the characters the text
 * may not begin with (the whitespace a caller consumed before it).
 *
 * @example
 * openingFreeRule(g, ['<tool_call>\n'], [[0x20, 0x20]]); // 'free' — "a <tool_call>x" matches, "a <tool_call>\n" does not
 */
export function openingFreeRule(
  g: GbnfBuilder,
  words: readonly string[],
  lead: readonly CodeRange[],
): string {
  const root = automaton(words.filter((w) => w.length > 0));
  const alphabet = [...new Set(words.flatMap((w) => [...w]))].sort();
  const states = [...walk(root)];
  for (const node of states) node.rule = g.reserve('free-state');
  const step = (node: Node, c: string): Node => {
    for (let at: Node | null = node; at; at = at.fail) {
      const child = at.next.get(c);
      if (child) return child;
    }
    return root;
  };
  const branches = (node: Node, taken: readonly CodeRange[]): string[] => {
    const out = [`${gbnfClass([...taken, ...alphabet.map(range)], true)} ${root.rule}`];
    for (const c of alphabet) {
      const to = step(node, c);
      if (!to.hit && !inRanges(c, taken)) out.push(`${gbnfLiteral(c)} ${to.rule}`);
    }
    return out;
  };
  for (const node of states) g.fill(node.rule, ['""', ...branches(node, [])].join(' | '));
  return g.add('free', branches(root, lead).join(' | '));
}

function range(c: string): CodeRange {
  const code = c.codePointAt(0) as number;
  return [code, code];
}

function inRanges(c: string, ranges: readonly CodeRange[]): boolean {
  const code = c.codePointAt(0) as number;
  return ranges.some(([lo, hi]) => code >= lo && code <= hi);
}

/** The trie of `words` with failure links, breadth first, and each node's `hit`. */
function automaton(words: readonly string[]): Node {
  const fresh = (): Node => ({ next: new Map(), hit: false, fail: null, rule: '' });
  const root = fresh();
  for (const word of words) {
    let node = root;
    for (const c of word) {
      const child = node.next.get(c) ?? fresh();
      node.next.set(c, child);
      node = child;
    }
    node.hit = true;
  }
  const queue: Node[] = [root];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as Node;
    for (const [c, child] of node.next) {
      let fail = node.fail;
      while (fail && !fail.next.has(c)) fail = fail.fail;
      child.fail = node === root ? root : (fail?.next.get(c) ?? root);
      child.hit ||= child.fail.hit;
      queue.push(child);
    }
  }
  return root;
}

/** The nodes text can stay in: every node no word ends at, root first. */
function* walk(root: Node): Generator<Node> {
  const queue: Node[] = [root];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as Node;
    yield node;
    for (const child of node.next.values()) if (!child.hit) queue.push(child);
  }
}
