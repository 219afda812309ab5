/**
 * fast-check arbitraries for the custom-tool grammar converters (issue 45): Lark grammars of the
 * subset intab takes, as a tree the test owns, with three independent readings of that tree: the
 * Lark text the converter is given, a JavaScript RegExp of the same language (the independent
 * matcher), and a sampler of strings in it. Rules only refer to later rules, so none recurses.
 *
 * @example
 * fc.assert(fc.property(larkArb(), (g) => new RegExp(larkRegExp(g)).test(larkSample(g, 1))));
 */
import fc from 'fast-check';

export type LarkNode =
  | { k: 'lit'; s: string }
  | { k: 'range'; lo: string; hi: string }
  | { k: 're'; i: number }
  | { k: 'ref'; to: number }
  | { k: 'seq'; items: LarkNode[] }
  | { k: 'alt'; opts: LarkNode[] }
  | { k: 'rep'; node: LarkNode; min: number; max: number | null; spell: string };

/** Rule 0 is `start`; rule i refers only to rules after it. */
export type LarkTree = { rules: LarkNode[]; terminal: boolean[] };

/** The regex terminals the tree uses: their Lark text, RegExp text, and a sampler. */
const TERMINALS: Array<{ lark: string; js: string; sample: (r: () => number) => string }> = [
  { lark: '/[a-c]+/', js: '[a-c]+', sample: (r) => 'abc'.slice(0, 1 + Math.floor(r() * 3)) },
  { lark: '/\\d{2}/', js: '\\d{2}', sample: (r) => `${Math.floor(r() * 10)}${Math.floor(r() * 10)}` },
  { lark: '/x?y/', js: 'x?y', sample: (r) => (r() < 0.5 ? 'y' : 'xy') },
  { lark: '/[^"a]/', js: '[^"a\\\\\\u0000-\\u001f\\u007f]', sample: () => 'q' },
];

const LITERALS = ['a', 'b', '+', '"', '\\', '(', ' ', 'é', 'ab', 'x"y', '\n', '-', '[', '/'];

function nodeArb(rule: number, rules: number): fc.Arbitrary<LarkNode> {
  const leaf: fc.Arbitrary<LarkNode>[] = [
    fc.constantFrom(...LITERALS).map((s) => ({ k: 'lit' as const, s })),
    fc
      .constantFrom(['a', 'c'], ['0', '9'], ['x', 'z'])
      .map(([lo, hi]) => ({ k: 'range' as const, lo: lo as string, hi: hi as string })),
    fc.nat({ max: TERMINALS.length - 1 }).map((i) => ({ k: 're' as const, i })),
  ];
  if (rule + 1 < rules)
    leaf.push(fc.integer({ min: rule + 1, max: rules - 1 }).map((to) => ({ k: 'ref' as const, to })));
  const { node } = fc.letrec<{ node: LarkNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      fc.oneof(...leaf),
      fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((items) => ({ k: 'seq' as const, items })),
      fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((opts) => ({ k: 'alt' as const, opts })),
      fc
        .tuple(
          tie('node'),
          fc.constantFrom(
            { min: 0, max: 1, spell: '?' },
            { min: 0, max: 1, spell: '[]' },
            { min: 0, max: null, spell: '*' },
            { min: 1, max: null, spell: '+' },
            { min: 2, max: 2, spell: '~ 2' },
            { min: 1, max: 3, spell: '~ 1..3' },
          ),
        )
        .map(([n, q]) => ({ k: 'rep' as const, node: n, ...q })),
    ),
  }));
  return node;
}

/** A grammar of 1–5 rules (some of them terminals, named in capitals). */
export function larkArb(): fc.Arbitrary<LarkTree> {
  return fc.integer({ min: 1, max: 5 }).chain((n) =>
    fc.record({
      rules: fc.tuple(...Array.from({ length: n }, (_, i) => nodeArb(i, n))),
      terminal: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    }),
  );
}

const name = (t: LarkTree, i: number) => (i === 0 ? 'start' : t.terminal[i] ? `T${i}` : `r${i}`);

function larkNode(t: LarkTree, n: LarkNode): string {
  switch (n.k) {
    case 'lit':
      return JSON.stringify(n.s);
    case 'range':
      return `${JSON.stringify(n.lo)}..${JSON.stringify(n.hi)}`;
    case 're':
      return (TERMINALS[n.i] as { lark: string }).lark;
    case 'ref':
      return name(t, n.to);
    case 'seq':
      return `(${n.items.map((i) => larkNode(t, i)).join(' ')})`;
    case 'alt':
      return `(${n.opts.map((o) => larkNode(t, o)).join(' | ')})`;
    case 'rep':
      if (n.spell === '[]') return `[${larkNode(t, n.node)}]`;
      return `(${larkNode(t, n.node)})${n.spell.startsWith('~') ? ` ${n.spell}` : n.spell}`;
  }
}

/** The Lark text: one definition per rule, a top-level alternation split over lines, a comment. */
export function larkText(t: LarkTree): string {
  return t.rules
    .map((body, i) => {
      const text =
        body.k === 'alt' ? body.opts.map((o) => larkNode(t, o)).join('\n    | ') : larkNode(t, body);
      return `${name(t, i)}: ${text}  // rule ${i}`;
    })
    .join('\n');
}

const SPECIAL = /[\\^$.|?*+()[\]{}/-]/g;

function jsNode(t: LarkTree, n: LarkNode): string {
  switch (n.k) {
    case 'lit':
      return `(?:${n.s.replace(SPECIAL, '\\$&').replace(/\n/g, '\\n')})`;
    case 'range':
      return `[${n.lo}-${n.hi}]`;
    case 're':
      return `(?:${(TERMINALS[n.i] as { js: string }).js})`;
    case 'ref':
      return jsNode(t, t.rules[n.to] as LarkNode);
    case 'seq':
      return `(?:${n.items.map((i) => jsNode(t, i)).join('')})`;
    case 'alt':
      return `(?:${n.opts.map((o) => jsNode(t, o)).join('|')})`;
    case 'rep':
      return `(?:${jsNode(t, n.node)}){${n.min},${n.max ?? ''}}`;
  }
}

/** The independent matcher: a JavaScript RegExp of the grammar's language. */
export function larkRegExp(t: LarkTree): RegExp {
  return new RegExp(`^${jsNode(t, t.rules[0] as LarkNode)}$`);
}

/** A string of the language, by the choices a seeded generator makes. */
export function larkSample(t: LarkTree, seed: number): string {
  let s = seed >>> 0 || 1;
  const r = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const walk = (n: LarkNode): string => {
    switch (n.k) {
      case 'lit':
        return n.s;
      case 'range': {
        const [lo, hi] = [n.lo.charCodeAt(0), n.hi.charCodeAt(0)];
        return String.fromCharCode(lo + Math.floor(r() * (hi - lo + 1)));
      }
      case 're':
        return (TERMINALS[n.i] as { sample: (r: () => number) => string }).sample(r);
      case 'ref':
        return walk(t.rules[n.to] as LarkNode);
      case 'seq':
        return n.items.map(walk).join('');
      case 'alt':
        return walk(n.opts[Math.floor(r() * n.opts.length)] as LarkNode);
      case 'rep': {
        const times = n.min + Math.floor(r() * ((n.max ?? n.min + 2) - n.min + 1));
        return Array.from({ length: times }, () => walk(n.node)).join('');
      }
    }
  };
  return walk(t.rules[0] as LarkNode);
}
