/**
 * A seeded random walk of a GBNF grammar (parsed by tests/helpers/gbnf-match.ts): what a model
 * with random weights writes when llama.cpp's sampler holds that grammar. Each alternative and
 * each repetition count is drawn from the seed; repetitions draw at most `extra` past their minimum,
 * and a negated class draws from printable ASCII and a few wider characters, so a walk of a
 * grammar without recursion ends. Deep recursion throws past `maxDepth`.
 *
 * @example
 * const text = sampleGbnf(grammar, 7); // gbnfMatches(grammar, text) === true
 */
import { type GbnfNode, parseGbnf } from './gbnf-match';

/** mulberry32: a small seeded PRNG, deterministic across runs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const POOL = [...' abcxyzABC019_-./:{}[],"\\\'\nñé日🙂'].map((c) => c.codePointAt(0) as number);

export function sampleGbnf(grammar: string, seed: number, extra = 3, maxDepth = 200): string {
  const rules = parseGbnf(grammar);
  const rnd = prng(seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  let out = '';
  const walk = (node: GbnfNode, depth: number): void => {
    if (depth > maxDepth) throw new Error('the walk went too deep: a recursive grammar');
    switch (node.k) {
      case 'lit':
        out += node.s;
        return;
      case 'any':
        out += String.fromCodePoint(POOL[pick(POOL.length)] as number);
        return;
      case 'cls': {
        const inside = (c: number) => node.ranges.some(([lo, hi]) => lo <= c && c <= hi);
        if (node.neg) {
          const ok = POOL.filter((c) => !inside(c));
          out += String.fromCodePoint(ok[pick(ok.length)] as number);
        } else {
          const [lo, hi] = node.ranges[pick(node.ranges.length)] as [number, number];
          out += String.fromCodePoint(lo + pick(hi - lo + 1));
        }
        return;
      }
      case 'ref':
        walk(rules.get(node.name) as GbnfNode, depth + 1);
        return;
      case 'seq':
        for (const n of node.items) walk(n, depth + 1);
        return;
      case 'alt':
        walk(node.opts[pick(node.opts.length)] as GbnfNode, depth + 1);
        return;
      case 'rep': {
        const count = node.min + pick(Math.min(node.max - node.min, extra) + 1);
        for (let k = 0; k < count; k++) walk(node.node, depth + 1);
        return;
      }
    }
  };
  walk(rules.get('root') as GbnfNode, 0);
  return out;
}
