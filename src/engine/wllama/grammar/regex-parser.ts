/**
 * The regex subset JSON Schema patterns use (ECMA-262), parsed into a tree in one pass: linear in
 * the pattern, with no recursion per quantifier and a bound on group nesting.
 */
import { clip } from '../../../common/api-error';
import type { CodeRange } from './gbnf';
import { GrammarTooComplexError, MAX_SCHEMA_DEPTH, TOO_COMPLEX } from './grammar-budget';

/** A pattern this converter cannot express (lookarounds, back-references…). */
export class UnsupportedPatternError extends Error {
  override readonly name = 'UnsupportedPatternError';
}

/** A parsed pattern. */
export type Node =
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
/** Recursive-descent parser for the regex subset JSON Schema patterns use. */
class Parser {
  private at = 0;
  private depth = 0;
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
    throw new UnsupportedPatternError(
      `Cannot use the pattern ${clip(JSON.stringify(this.pattern), 100)}: ${why}.`,
    );
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

  /** The quantifiers after `node` (a loop: `a**…*` costs no stack), each wrapping the last. */
  private quantified(node: Node): Node {
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number | null;
      if (c === '*') [min, max] = [0, null];
      else if (c === '+') [min, max] = [1, null];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const braces = this.braces();
        if (!braces) return node;
        [min, max] = braces;
      } else return node;
      this.at++;
      if (this.peek() === '?') this.at++; // lazy: same language
      if (node.kind === 'start' || node.kind === 'end') this.fail('a quantifier after an anchor');
      if (node.kind === 'repeat') this.fail('nothing to repeat (a quantifier after a quantifier)');
      if (max !== null && max < min) this.fail('a quantifier whose maximum is below its minimum');
      node = { kind: 'repeat', node, min, max };
    }
  }

  /**
   * `{m}`, `{m,}` or `{m,n}` at the cursor: its bounds, leaving the cursor on its `}`; null (cursor
   * unmoved) when the brace is a plain character. Reads only the quantifier, so a pattern of many
   * quantifiers is read in linear time.
   */
  private braces(): [number, number | null] | null {
    let i = this.at + 1;
    const digits = (): string => {
      const start = i;
      while (/[0-9]/.test(this.chars[i] ?? '')) i++;
      return this.chars.slice(start, i).join('');
    };
    const lo = digits();
    if (lo === '') return null;
    let hi: number | null = Number(lo);
    if (this.chars[i] === ',') {
      i++;
      const h = digits();
      hi = h === '' ? null : Number(h);
    }
    if (this.chars[i] !== '}') return null;
    this.at = i;
    return [Number(lo), hi];
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
    if (++this.depth > MAX_SCHEMA_DEPTH) {
      throw new GrammarTooComplexError(
        '',
        `${TOO_COMPLEX} (its pattern nests groups deeper than ${MAX_SCHEMA_DEPTH}).`,
      );
    }
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
    this.depth--;
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

/**
 * The tree of `pattern`; throws {@link UnsupportedPatternError} for what the grammar cannot express.
 *
 * @example
 * parseRegex('^a+$'); // { kind: 'seq', items: [{ kind: 'start' }, { kind: 'repeat', … }, { kind: 'end' }] }
 */
export function parseRegex(pattern: string): Node {
  return new Parser(pattern).parse();
}
