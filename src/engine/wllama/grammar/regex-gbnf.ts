/**
 * A JSON Schema `pattern` (an ECMA-262 regular expression) as a GBNF expression for the inside of a
 * JSON string: what the model writes between the quotes must match the pattern. Characters a JSON
 * string can only hold escaped (`"`, `\`, control characters) are written escaped.
 */
import { clip } from '../../../common/api-error';
import { type CodeRange, gbnfClass, gbnfLiteral } from './gbnf';
import { GrammarTooComplexError, MAX_GRAMMAR_BYTES, TOO_COMPLEX } from './grammar-budget';
import { type Node, parseRegex, UnsupportedPatternError } from './regex-parser';

export { UnsupportedPatternError } from './regex-parser';

/** What a JSON string cannot hold unescaped. */
const JSON_UNSAFE: CodeRange[] = [
  [0x00, 0x1f],
  [0x22, 0x22],
  [0x5c, 0x5c],
  [0x7f, 0x7f],
];

/**
 * The GBNF expression for strings matching `pattern`. An unanchored pattern may have any text
 * before (no `^`) or after (no `$`) its match, as JSON Schema's `pattern` allows.
 *
 * @example
 * regexToGbnf('^[A-Z]{3}-\\d{2}$'); // '([A-Z]{3} "-" [0-9]{2})'
 */
export function regexToGbnf(pattern: string, raw = false): string {
  // Its grammar is at least a third of its length: past the size budget either way, refused unread.
  if (pattern.length > MAX_GRAMMAR_BYTES) {
    throw new GrammarTooComplexError(
      '',
      `${TOO_COMPLEX} (its pattern is longer than ${MAX_GRAMMAR_BYTES} characters).`,
    );
  }
  const ast = parseRegex(pattern);
  const options = ast.kind === 'alt' ? ast.options : [ast];
  const free = raw ? '.*' : `${gbnfClass(JSON_UNSAFE, true)}*`;
  const alternatives = options.map((option) => {
    const items = option.kind === 'seq' ? [...option.items] : [option];
    const anchoredStart = items[0]?.kind === 'start';
    const anchoredEnd = items[items.length - 1]?.kind === 'end';
    const body = items.filter((n) => n.kind !== 'start' && n.kind !== 'end');
    if (body.some((n) => containsAnchor(n))) {
      throw new UnsupportedPatternError(
        `'^' and '$' are supported only at the ends of a pattern: ${clip(pattern, 100)}`,
      );
    }
    const parts = [
      anchoredStart ? '' : free,
      emit({ kind: 'seq', items: body }, raw).text,
      anchoredEnd ? '' : free,
    ];
    return parts.filter((p) => p !== '').join(' ') || '""';
  });
  return alternatives.length === 1 ? `(${alternatives[0]})` : `(${alternatives.join(' | ')})`;
}

function containsAnchor(n: Node): boolean {
  if (n.kind === 'start' || n.kind === 'end') return true;
  if (n.kind === 'alt') return n.options.some(containsAnchor);
  if (n.kind === 'seq') return n.items.some(containsAnchor);
  if (n.kind === 'repeat') return containsAnchor(n.node);
  return false;
}

/**
 * GBNF for `n`, and whether it is one atom (a quantifier may follow it without parentheses).
 * `raw`: the text as it is (a Qwen3.5 XML parameter value), nothing escaped.
 */
function emit(n: Node, raw: boolean): { text: string; atom: boolean } {
  switch (n.kind) {
    case 'alt':
      return { text: `(${n.options.map((o) => emit(o, raw).text).join(' | ')})`, atom: true };
    case 'seq': {
      if (n.items.length === 0) return { text: '""', atom: false };
      if (n.items.length === 1) return emit(n.items[0] as Node, raw);
      return { text: n.items.map((i) => emit(i, raw).text).join(' '), atom: false };
    }
    case 'repeat': {
      const inner = emit(n.node, raw);
      // An empty group repeated is still empty (and llama.cpp refuses a quantifier on `""`).
      if (inner.text === '""') return inner;
      const atom = inner.atom ? inner.text : `(${inner.text})`;
      let text: string;
      if (n.min === 0 && n.max === null) text = `${atom}*`;
      else if (n.min === 1 && n.max === null) text = `${atom}+`;
      else if (n.min === 0 && n.max === 1) text = `${atom}?`;
      else if (n.max === null) text = `${atom}{${n.min},}`;
      else text = n.min === n.max ? `${atom}{${n.min}}` : `${atom}{${n.min},${n.max}}`;
      return { text, atom: false };
    }
    case 'char':
      return { text: raw ? gbnfLiteral(n.ch) : jsonChar(n.ch), atom: true };
    case 'class': {
      const text = raw ? gbnfClass(n.ranges, n.negate) : classExpr(n.ranges, n.negate);
      return { text, atom: text.startsWith('[') || text.startsWith('(') };
    }
    case 'any':
      if (raw) return { text: gbnfClass([[0x0a, 0x0a]], true), atom: true };
      // `.` matches anything but line terminators: inside a JSON string, anything that needs no
      // escape, or an escaped quote or backslash.
      return {
        text: `(${gbnfClass(JSON_UNSAFE, true)} | ${gbnfLiteral('\\"')} | ${gbnfLiteral('\\\\')})`,
        atom: true,
      };
    default:
      return { text: '""', atom: false };
  }
}

/** One literal character as the model writes it inside a JSON string. */
function jsonChar(ch: string): string {
  const escaped = JSON.stringify(ch).slice(1, -1);
  return gbnfLiteral(escaped);
}

/**
 * A class as GBNF. A positive class keeps what a JSON string can hold raw, plus the escaped forms of
 * `"` and `\` when the class has them; a negated one also excludes what must be escaped.
 */
function classExpr(ranges: CodeRange[], negate: boolean): string {
  if (negate) return gbnfClass([...ranges, ...JSON_UNSAFE], true);
  const safe = subtract(ranges, JSON_UNSAFE);
  const extras: string[] = [];
  if (hasCode(ranges, 0x22)) extras.push(gbnfLiteral('\\"'));
  if (hasCode(ranges, 0x5c)) extras.push(gbnfLiteral('\\\\'));
  const main = safe.length > 0 ? [gbnfClass(safe)] : [];
  const all = [...main, ...extras];
  if (all.length === 0)
    throw new UnsupportedPatternError('A character class matches no character a JSON string can hold.');
  return all.length === 1 ? (all[0] as string) : `(${all.join(' | ')})`;
}

function hasCode(ranges: readonly CodeRange[], cp: number): boolean {
  return ranges.some(([lo, hi]) => lo <= cp && cp <= hi);
}

/** `ranges` minus `remove`, both inclusive code point ranges. */
function subtract(ranges: readonly CodeRange[], remove: readonly CodeRange[]): CodeRange[] {
  let out: CodeRange[] = [...ranges];
  for (const [rlo, rhi] of remove) {
    const next: CodeRange[] = [];
    for (const [lo, hi] of out) {
      if (rhi < lo || rlo > hi) next.push([lo, hi]);
      else {
        if (lo < rlo) next.push([lo, rlo - 1]);
        if (hi > rhi) next.push([rhi + 1, hi]);
      }
    }
    out = next;
  }
  return out;
}
