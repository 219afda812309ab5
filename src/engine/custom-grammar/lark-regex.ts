/**
 * A Lark definition (lark-parser.ts) as one whole-input regular expression, which both engines then
 * hold the call's `input` to as they hold a JSON Schema `pattern` (GBNF on wllama, xgrammar's regex
 * on web-llm). Each rule is rendered once and its text reused wherever it is referenced (memoized,
 * as llama.cpp's json-schema-to-grammar memoizes its rules); the output is bounded by
 * {@link MAX_INPUT_PATTERN}, so a grammar that shares one rule many times is refused rather than
 * written out at any size. A regular expression cannot recurse: a rule that refers to itself,
 * directly or through others, is a 400 naming it.
 */
import { clip } from '../../common/api-error';
import { type LarkExpr, type LarkGrammar, parseLark } from './lark-parser';
import { CustomGrammarError, MAX_INPUT_PATTERN, MAX_LARK_DEPTH } from './limits';

/** What a regex must escape outside a class. */
const SPECIAL = new Set([...'\\^$.|?*+()[]{}/-']);

/** One code point as the regex parser reads it: escaped if special, `\uXXXX` if a control character. */
function regexChar(cp: number): string {
  const ch = String.fromCodePoint(cp);
  if (cp < 0x20 || cp === 0x7f) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return SPECIAL.has(ch) ? `\\${ch}` : ch;
}

/** Renders each rule once; `visiting` holds the rules being rendered, to find recursion. */
class Renderer {
  private readonly done = new Map<string, string>();
  private readonly visiting = new Set<string>();

  constructor(private readonly defs: LarkGrammar) {}

  rule(name: string): string {
    const memo = this.done.get(name);
    if (memo !== undefined) return memo;
    const expr = this.defs.get(name);
    if (!expr) this.fail(`'${clip(name, 60)}' is used but never defined`);
    if (this.visiting.has(name))
      this.fail(
        `the rule '${clip(name, 60)}' is recursive; intab turns a Lark grammar into one regular expression, which cannot recurse`,
      );
    if (this.visiting.size >= MAX_LARK_DEPTH) this.fail(`rules refer to rules deeper than ${MAX_LARK_DEPTH}`);
    this.visiting.add(name);
    const text = this.expr(expr);
    this.visiting.delete(name);
    this.done.set(name, text);
    return text;
  }

  private fail(why: string): never {
    throw new CustomGrammarError(`The Lark grammar cannot be used: ${why}.`);
  }

  /** `e` as a regex that a quantifier may follow (wrapped in a group where it is not one atom). */
  private expr(e: LarkExpr): string {
    const text = this.render(e);
    if (text.length > MAX_INPUT_PATTERN)
      this.fail(`it expands to a regular expression longer than ${MAX_INPUT_PATTERN} characters`);
    return text;
  }

  private render(e: LarkExpr): string {
    switch (e.kind) {
      case 'literal': {
        const cps = [...e.text].map((c) => regexChar(c.codePointAt(0) as number));
        return cps.length === 1 ? (cps[0] as string) : `(?:${cps.join('')})`;
      }
      case 'range':
        return `[${regexChar(e.lo)}-${regexChar(e.hi)}]`;
      case 'regex':
        return `(?:${e.source})`;
      case 'ref':
        return this.rule(e.name);
      case 'seq':
        return e.items.length === 0 ? '(?:)' : `(?:${e.items.map((i) => this.expr(i)).join('')})`;
      case 'alt':
        return `(?:${e.options.map((o) => this.expr(o)).join('|')})`;
      case 'repeat': {
        const inner = this.expr(e.node);
        if (e.min === 0 && e.max === null) return `(?:${inner}*)`;
        if (e.min === 1 && e.max === null) return `(?:${inner}+)`;
        if (e.min === 0 && e.max === 1) return `(?:${inner}?)`;
        const bounds = e.max === null ? `${e.min},` : e.min === e.max ? `${e.min}` : `${e.min},${e.max}`;
        return `(?:${inner}{${bounds}})`;
      }
    }
  }
}

/**
 * The anchored pattern (`^…$`) of the strings `definition`'s `start` derives. Throws
 * {@link CustomGrammarError} for what the subset cannot express or a bound it passes.
 *
 * @example
 * larkInputPattern('start: "x" NUM\nNUM: /[0-9]+/'); // '^(?:x(?:[0-9]+))$'
 */
export function larkInputPattern(definition: string): string {
  const defs = parseLark(definition);
  return `^${new Renderer(defs).rule('start')}$`;
}
