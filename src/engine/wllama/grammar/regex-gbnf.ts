/**
 * A JSON Schema `pattern` (an ECMA-262 regular expression) as a GBNF expression for the inside of a
 * JSON string: what the model writes between the quotes must match the pattern. Characters a JSON
 * string can only hold escaped (`"`, `\`, control characters) are written escaped.
 */
import { type CodeRange, gbnfClass, gbnfLiteral } from './gbnf';

/** A pattern this converter cannot express (lookarounds, back-references…). */
export class UnsupportedPatternError extends Error {
  override readonly name = 'UnsupportedPatternError';
}

type Node =
  | { kind: 'alt'; options: Node[] }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'repeat'; node: Node; min: number; max: number | null }
  | { kind: 'char'; ch: string }
  | { kind: 'class'; ranges: CodeRange[]; negate: boolean }
  | { kind: 'any' }
  | { kind: 'start' }
  | { kind: 'end' };

const DIGIT: CodeRange[] = [[0x30, 0x39]];
const WORD: CodeRange[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** `\s` inside a JSON string: only the space needs no escape. */
const SPACE: CodeRange[] = [[0x20, 0x20]];
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
export function regexToGbnf(pattern: string): string {
  const ast = new Parser(pattern).parse();
  const options = ast.kind === 'alt' ? ast.options : [ast];
  const free = `${gbnfClass(JSON_UNSAFE, true)}*`;
  const alternatives = options.map((option) => {
    const items = option.kind === 'seq' ? [...option.items] : [option];
    const anchoredStart = items[0]?.kind === 'start';
    const anchoredEnd = items[items.length - 1]?.kind === 'end';
    const body = items.filter((n) => n.kind !== 'start' && n.kind !== 'end');
    if (body.some((n) => containsAnchor(n))) {
      throw new UnsupportedPatternError(
        `'^' and '$' are supported only at the ends of a pattern: ${pattern}`,
      );
    }
    const parts = [anchoredStart ? '' : free, emit({ kind: 'seq', items: body }), anchoredEnd ? '' : free];
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

function emit(n: Node): string {
  switch (n.kind) {
    case 'alt':
      return `(${n.options.map(emit).join(' | ')})`;
    case 'seq':
      return n.items.length === 0 ? '""' : n.items.map(emit).join(' ');
    case 'repeat': {
      const inner = emit(n.node);
      const atom = /^(\(.*\)|\[.*\]|"[^"]*")$/s.test(inner) && balanced(inner) ? inner : `(${inner})`;
      if (n.min === 0 && n.max === null) return `${atom}*`;
      if (n.min === 1 && n.max === null) return `${atom}+`;
      if (n.min === 0 && n.max === 1) return `${atom}?`;
      if (n.max === null) return `${atom}{${n.min},}`;
      return n.min === n.max ? `${atom}{${n.min}}` : `${atom}{${n.min},${n.max}}`;
    }
    case 'char':
      return jsonChar(n.ch);
    case 'class':
      return classExpr(n.ranges, n.negate);
    case 'any':
      // `.` matches anything but line terminators: inside a JSON string, anything that needs no
      // escape, or an escaped quote or backslash.
      return `(${gbnfClass(JSON_UNSAFE, true)} | ${gbnfLiteral('\\"')} | ${gbnfLiteral('\\\\')})`;
    default:
      return '""';
  }
}

/** Whether the outer brackets of `s` enclose all of it (so it is one atom). */
function balanced(s: string): boolean {
  if (!s.startsWith('(')) return true;
  let depth = 0;
  let inStr = false;
  let inClass = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inStr) {
      if (c === '"') inStr = false;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '"') inStr = true;
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0 && i < s.length - 1) return false;
    }
  }
  return true;
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

/** Recursive-descent parser for the regex subset JSON Schema patterns use. */
class Parser {
  private at = 0;
  private readonly chars: string[];

  constructor(private readonly pattern: string) {
    this.chars = [...pattern];
  }

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.chars.length) this.fail(`unexpected '${this.chars[this.at]}'`);
    return node;
  }

  private peek(): string | undefined {
    return this.chars[this.at];
  }

  private fail(why: string): never {
    throw new UnsupportedPatternError(`Cannot use the pattern ${JSON.stringify(this.pattern)}: ${why}.`);
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? (options[0] as Node) : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      items.push(this.quantified(this.atom()));
    }
    return { kind: 'seq', items };
  }

  private quantified(node: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number | null;
    if (c === '*') [min, max] = [0, null];
    else if (c === '+') [min, max] = [1, null];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{' && /^\{\d+(,\d*)?\}/.test(this.chars.slice(this.at).join(''))) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.chars.slice(this.at).join('')) as RegExpExecArray;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? null : Number(m[3]);
      this.at += m[0].length - 1;
    } else return node;
    this.at++;
    if (this.peek() === '?') this.at++; // lazy: same language
    if (node.kind === 'start' || node.kind === 'end') this.fail('a quantifier after an anchor');
    if (max !== null && max < min) this.fail('a quantifier whose maximum is below its minimum');
    return this.quantified({ kind: 'repeat', node, min, max });
  }

  private atom(): Node {
    const c = this.chars[this.at++] as string;
    switch (c) {
      case '^':
        return { kind: 'start' };
      case '$':
        return { kind: 'end' };
      case '.':
        return { kind: 'any' };
      case '(':
        return this.group();
      case '[':
        return this.charClass();
      case '\\':
        return this.escape(false) as Node;
      case '*':
      case '+':
      case '?':
        return this.fail(`nothing to repeat before '${c}'`);
      default:
        return { kind: 'char', ch: c };
    }
  }

  private group(): Node {
    if (this.peek() === '?') {
      const next = this.chars[this.at + 1];
      if (next === ':') this.at += 2;
      else if (next === '<' && /[A-Za-z]/.test(this.chars[this.at + 2] ?? '')) {
        const close = this.chars.indexOf('>', this.at);
        if (close < 0) this.fail('an unterminated group name');
        this.at = close + 1;
      } else this.fail('lookarounds are not supported');
    }
    const inner = this.alternation();
    if (this.chars[this.at++] !== ')') this.fail('an unclosed group');
    return inner;
  }

  private charClass(): Node {
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.at++;
    }
    const ranges: CodeRange[] = [];
    let first = true;
    while (this.peek() !== ']' || first) {
      first = false;
      if (this.peek() === undefined) this.fail('an unclosed character class');
      const lo = this.classMember();
      if (Array.isArray(lo)) {
        ranges.push(...lo);
        continue;
      }
      if (this.peek() === '-' && this.chars[this.at + 1] !== ']' && this.chars[this.at + 1] !== undefined) {
        this.at++;
        const hi = this.classMember();
        if (Array.isArray(hi) || hi < lo) this.fail('a bad range in a character class');
        ranges.push([lo, hi as number]);
      } else ranges.push([lo, lo]);
    }
    this.at++;
    return { kind: 'class', ranges, negate };
  }

  /** A code point, or the ranges of an escape class such as `\d`. */
  private classMember(): number | CodeRange[] {
    const c = this.chars[this.at++] as string;
    if (c !== '\\') return c.codePointAt(0) as number;
    const e = this.escape(true);
    if (e.kind === 'char') return e.ch.codePointAt(0) as number;
    if (e.kind === 'class' && !e.negate) return e.ranges;
    return this.fail('negated escapes (\\D, \\W, \\S) inside a character class are not supported');
  }

  private escape(inClass: boolean): Node {
    const c = this.chars[this.at++];
    if (c === undefined) this.fail('a trailing backslash');
    switch (c) {
      case 'd':
        return { kind: 'class', ranges: DIGIT, negate: false };
      case 'D':
        return { kind: 'class', ranges: DIGIT, negate: true };
      case 'w':
        return { kind: 'class', ranges: WORD, negate: false };
      case 'W':
        return { kind: 'class', ranges: WORD, negate: true };
      case 's':
        return { kind: 'class', ranges: SPACE, negate: false };
      case 'S':
        return { kind: 'class', ranges: SPACE, negate: true };
      case 'n':
        return { kind: 'char', ch: '\n' };
      case 't':
        return { kind: 'char', ch: '\t' };
      case 'r':
        return { kind: 'char', ch: '\r' };
      case 'b':
        if (inClass) return { kind: 'char', ch: '\b' };
        return this.fail('word boundaries (\\b) are not supported');
      case 'u': {
        const hex = this.chars.slice(this.at, this.at + 4).join('');
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('a bad \\u escape');
        this.at += 4;
        return { kind: 'char', ch: String.fromCharCode(Number.parseInt(hex, 16)) };
      }
      case 'x': {
        const hex = this.chars.slice(this.at, this.at + 2).join('');
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) this.fail('a bad \\x escape');
        this.at += 2;
        return { kind: 'char', ch: String.fromCharCode(Number.parseInt(hex, 16)) };
      }
      default:
        if (/[1-9]/.test(c as string)) this.fail('back-references are not supported');
        if (/[A-Za-z0-9]/.test(c as string)) this.fail(`the escape \\${c} is not supported`);
        return { kind: 'char', ch: c as string };
    }
  }
}
