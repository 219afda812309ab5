/**
 * The key of a member an open object does not declare: a JSON string that is none of the declared
 * names, so a declared property cannot come back a second time as an "extra" one with any value
 * (llama.cpp's json-schema-to-grammar writes the same exclusion, `_not_strings`). The names form a
 * trie and each trie node is one rule of a few alternatives, so no group nests and the rules are
 * linear in the names' total length. A name is matched as written raw: one that needs a JSON escape
 * (a quote, a backslash, a control character) is excluded up to that character only.
 */
import { type GbnfBuilder, gbnfClass, gbnfLiteral } from './gbnf';

/** What the key rule needs of the schema converter (its `SchemaContext`). */
interface KeyContext {
  readonly g: GbnfBuilder;
  readonly prefix: string;
  prim(name: string): string;
  tick(path: string): void;
}

interface TrieNode {
  readonly children: Map<number, TrieNode>;
  /** A declared name ends here. */
  end: boolean;
  rule: string;
}

/** Code points JSON writes only as an escape, and that `json-char` takes only escaped. */
function escapedOnly(cp: number): boolean {
  return cp < 0x20 || cp === 0x22 || cp === 0x5c || cp === 0x7f;
}

const ESCAPED_CHAR = '"\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})';

/**
 * A GBNF expression for `"key"` where key is no name of `names` (any JSON string when there is none).
 *
 * @example
 * undeclaredKeyRule(ctx, ['id']); // '"\\"" key-2? "\\""', key-2 ::= "i" key-1? | [^…i] json-char*
 */
export function undeclaredKeyRule(ctx: KeyContext, names: readonly string[]): string {
  const root: TrieNode = { children: new Map(), end: false, rule: '' };
  // Nodes in creation order: a child always comes after its parent.
  const order: TrieNode[] = [root];
  for (const name of names) {
    ctx.tick('/properties');
    let node = root;
    let whole = true;
    for (const ch of name) {
      const cp = ch.codePointAt(0) as number;
      if (escapedOnly(cp)) {
        whole = false;
        break;
      }
      let next = node.children.get(cp);
      if (!next) {
        next = { children: new Map(), end: false, rule: '' };
        node.children.set(cp, next);
        order.push(next);
      }
      node = next;
    }
    if (whole) node.end = true;
  }
  if (root.children.size === 0 && !root.end) return ctx.prim('json-string');
  const char = ctx.prim('json-char');
  // Children first, so each rule names rules already built.
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i] as TrieNode;
    if (node.children.size === 0) continue;
    const alternatives: string[] = [];
    const taken: Array<readonly [number, number]> = [
      [0x00, 0x1f],
      [0x22, 0x22],
      [0x5c, 0x5c],
      [0x7f, 0x7f],
    ];
    for (const [cp, child] of node.children) {
      taken.push([cp, cp]);
      const literal = gbnfLiteral(String.fromCodePoint(cp));
      // Past a declared name at least one more character; elsewhere the key may stop.
      if (child.children.size === 0) alternatives.push(`${literal} ${char}${child.end ? '+' : '*'}`);
      else alternatives.push(`${literal} ${child.rule}${child.end ? '' : '?'}`);
    }
    alternatives.push(`(${gbnfClass(taken, true)} | ${ESCAPED_CHAR}) ${char}*`);
    node.rule = ctx.g.add(`${ctx.prefix}key`, alternatives.join(' | '));
  }
  const rest = root.children.size === 0 ? `${char}+` : `${root.rule}${root.end ? '' : '?'}`;
  return `"\\"" ${rest} "\\""`;
}
