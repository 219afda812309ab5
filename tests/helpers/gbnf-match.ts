/**
 * A small GBNF recognizer for tests: parses a llama.cpp grammar (rules, literals with escapes,
 * character classes, `.`, groups, alternatives, `*` `+` `?` `{m}` `{m,}` `{m,n}`) and says whether
 * a whole string matches `root`. It is an independent reading of the grammar text: a rule the
 * generator gets wrong (a bad escape, a missing rule, a wrong repetition) fails here in Node, before
 * llama.cpp ever sees it. No left recursion (llama.cpp has none either).
 *
 * @example
 * expect(gbnfMatches(grammar, '{"a": 1}')).toBe(true);
 */

export type GbnfNode = Node;

type Node =
  | { k: 'lit'; s: string }
  | { k: 'cls'; ranges: [number, number][]; neg: boolean }
  | { k: 'any' }
  | { k: 'ref'; name: string }
  | { k: 'seq'; items: Node[] }
  | { k: 'alt'; opts: Node[] }
  | { k: 'rep'; node: Node; min: number; max: number };

/** Parses a grammar into rules; throws on anything llama.cpp's parser would also reject. */
export function parseGbnf(text: string): Map<string, Node> {
  const rules = new Map<string, Node>();
  let i = 0;
  const ws = (newlines: boolean) => {
    for (;;) {
      const c = text[i];
      if (c === '#') while (i < text.length && text[i] !== '\n') i++;
      else if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) i++;
      else return;
    }
  };
  const name = () => {
    const m = /^[a-zA-Z0-9-]+/.exec(text.slice(i));
    if (!m) throw new Error(`expected a rule name at ${i}: ${text.slice(i, i + 20)}`);
    i += m[0].length;
    return m[0];
  };
  const char = (): number => {
    const c = text[i] as string;
    if (c !== '\\') {
      const cp = text.codePointAt(i) as number;
      i += cp > 0xffff ? 2 : 1;
      return cp;
    }
    const e = text[i + 1];
    i += 2;
    const hex = (n: number) => {
      const h = text.slice(i, i + n);
      if (!/^[0-9a-fA-F]+$/.test(h) || h.length !== n) throw new Error(`bad escape at ${i}`);
      i += n;
      return Number.parseInt(h, 16);
    };
    if (e === 'x') return hex(2);
    if (e === 'u') return hex(4);
    if (e === 'U') return hex(8);
    const simple: Record<string, number> = { n: 10, r: 13, t: 9, '\\': 92, '"': 34, '[': 91, ']': 93 };
    if (e !== undefined && e in simple) return simple[e] as number;
    throw new Error(`unknown escape \\${e} at ${i}`);
  };
  const alternatives = (): Node => {
    const opts = [sequence()];
    while (text[i] === '|') {
      i++;
      ws(true);
      opts.push(sequence());
    }
    return opts.length === 1 ? (opts[0] as Node) : { k: 'alt', opts };
  };
  const sequence = (): Node => {
    const items: Node[] = [];
    for (;;) {
      ws(false);
      const c = text[i];
      if (c === undefined || c === '|' || c === ')' || c === '\n') break;
      let node: Node;
      if (c === '"') {
        i++;
        let s = '';
        while (text[i] !== '"') {
          if (i >= text.length) throw new Error('unterminated literal');
          s += String.fromCodePoint(char());
        }
        i++;
        node = { k: 'lit', s };
      } else if (c === '[') {
        i++;
        const neg = text[i] === '^';
        if (neg) i++;
        const ranges: [number, number][] = [];
        while (text[i] !== ']') {
          if (i >= text.length) throw new Error('unterminated class');
          const lo = char();
          if (text[i] === '-' && text[i + 1] !== ']') {
            i++;
            ranges.push([lo, char()]);
          } else ranges.push([lo, lo]);
        }
        i++;
        node = { k: 'cls', ranges, neg };
      } else if (c === '.') {
        i++;
        node = { k: 'any' };
      } else if (c === '(') {
        i++;
        ws(true);
        node = alternatives();
        ws(true);
        if (text[i] !== ')') throw new Error(`expected ) at ${i}`);
        i++;
      } else node = { k: 'ref', name: name() };
      for (;;) {
        const q = text[i];
        if (q === '*') node = { k: 'rep', node, min: 0, max: Number.POSITIVE_INFINITY };
        else if (q === '+') node = { k: 'rep', node, min: 1, max: Number.POSITIVE_INFINITY };
        else if (q === '?') node = { k: 'rep', node, min: 0, max: 1 };
        else if (q === '{') {
          const m = /^\{(\d+)(,(\d*))?\}/.exec(text.slice(i));
          if (!m) throw new Error(`bad repetition at ${i}`);
          const min = Number(m[1]);
          const max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
          node = { k: 'rep', node, min, max };
          i += m[0].length - 1;
        } else break;
        i++;
      }
      items.push(node);
    }
    return items.length === 1 ? (items[0] as Node) : { k: 'seq', items };
  };
  for (;;) {
    ws(true);
    if (i >= text.length) break;
    const rule = name();
    ws(false);
    if (text.slice(i, i + 3) !== '::=') throw new Error(`expected ::= after ${rule}`);
    i += 3;
    ws(true);
    rules.set(rule, alternatives());
  }
  for (const [rule, node] of rules) checkRefs(node, rules, rule);
  if (!rules.has('root')) throw new Error('no root rule');
  return rules;
}

function checkRefs(node: Node, rules: Map<string, Node>, where: string): void {
  if (node.k === 'ref' && !rules.has(node.name))
    throw new Error(`rule '${where}' uses undefined '${node.name}'`);
  if (node.k === 'seq') for (const n of node.items) checkRefs(n, rules, where);
  if (node.k === 'alt') for (const n of node.opts) checkRefs(n, rules, where);
  if (node.k === 'rep') checkRefs(node.node, rules, where);
}

/**
 * Whether all of `input` matches the grammar's `root`.
 *
 * @example
 * gbnfMatches('root ::= "a"+', 'aaa'); // true
 */
export function gbnfMatches(grammar: string | Map<string, Node>, input: string): boolean {
  const rules = typeof grammar === 'string' ? parseGbnf(grammar) : grammar;
  const cps = [...input].map((c) => c.codePointAt(0) as number);
  const memo = new Map<string, Set<number>>();
  const match = (node: Node, pos: number): Set<number> => {
    switch (node.k) {
      case 'lit': {
        const lit = [...node.s].map((c) => c.codePointAt(0) as number);
        for (let j = 0; j < lit.length; j++) if (cps[pos + j] !== lit[j]) return new Set();
        return new Set([pos + lit.length]);
      }
      case 'cls': {
        const c = cps[pos];
        if (c === undefined) return new Set();
        const inside = node.ranges.some(([lo, hi]) => lo <= c && c <= hi);
        return inside !== node.neg ? new Set([pos + 1]) : new Set();
      }
      case 'any':
        return pos < cps.length ? new Set([pos + 1]) : new Set();
      case 'ref': {
        const key = `${node.name}@${pos}`;
        const known = memo.get(key);
        if (known) return known;
        memo.set(key, new Set());
        const out = match(rules.get(node.name) as Node, pos);
        memo.set(key, out);
        return out;
      }
      case 'seq': {
        let at = new Set([pos]);
        for (const item of node.items) {
          const next = new Set<number>();
          for (const p of at) for (const q of match(item, p)) next.add(q);
          at = next;
          if (at.size === 0) break;
        }
        return at;
      }
      case 'alt': {
        const out = new Set<number>();
        for (const o of node.opts) for (const q of match(o, pos)) out.add(q);
        return out;
      }
      case 'rep': {
        const out = new Set<number>();
        let frontier = new Set([pos]);
        const seen = new Set<string>();
        // Past the input's length only empty matches go on, but a nullable item still counts to `min`.
        const cap = Math.min(node.max, Math.max(node.min, cps.length + 1));
        for (let n = 0; frontier.size > 0 && n <= cap; n++) {
          if (n >= node.min) for (const p of frontier) out.add(p);
          if (n === node.max) break;
          const next = new Set<number>();
          for (const p of frontier) {
            for (const q of match(node.node, p)) {
              const key = `${n >= node.min ? 'm' : n}:${q}`;
              if (q === p && n >= node.min) continue;
              if (!seen.has(key)) {
                seen.add(key);
                next.add(q);
              }
            }
          }
          frontier = next;
        }
        return out;
      }
    }
  };
  return match({ k: 'ref', name: 'root' }, 0).has(cps.length);
}
