/**
 * llama.cpp's grammar parser, replayed in TypeScript to find what it would refuse before any model
 * is downloaded: it reads a grammar as `llama_grammar_parser::parse` does (src/llama-grammar.cpp),
 * expands each `{m,n}` into rules the same way, and applies the same checks: repetition counts
 * (`MAX_REPETITION_THRESHOLD`, counted on the rules a repeated item generates), undefined rules, a
 * missing root, and left recursion (`llama_grammar_detect_left_recursion`: `x ::= x "a" | "b"`).
 * On top of those, bounds that keep llama.cpp's recursive parser and checker within their stack and
 * the expanded grammar within memory. (A repeated part that may be empty, `("a"*)*`, is no left
 * recursion to llama.cpp, whose check looks only for literally empty alternatives, and the build in
 * @wllama/wllama 3.8.1 runs it: checked in Chromium.)
 */
import { pace } from '../../../common/pace';
import {
  GrammarTooComplexError,
  LLAMA_MAX_REPETITIONS,
  MAX_GROUP_DEPTH,
  MAX_LLAMA_ELEMENTS,
  TOO_COMPLEX,
} from './grammar-budget';

import { ALT, END, LeftRecursionCheck, TERMINAL } from './left-recursion';

/** Why llama.cpp would refuse a grammar, and the rule it would refuse it in. */
export class LlamaGrammarError extends GrammarTooComplexError {
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super('', message);
  }
}

/**
 * Throws {@link LlamaGrammarError} when llama.cpp would refuse `grammar` (or overflow its stack or
 * memory on it). Linear in the grammar's text and in the rules it expands to, and in slices:
 * `between()` (a yield to the event loop) runs every {@link SLICE} rules, so a large grammar holds the
 * worker for a slice at a time.
 *
 * @example
 * await checkLlamaGrammarPaced('root ::= "a"{0,100}\n'); // fine
 * await checkLlamaGrammarPaced('root ::= x\nx ::= x "a" | "b"\n'); // rejects: left recursion
 */
export async function checkLlamaGrammarPaced(
  grammar: string,
  between: () => Promise<void> = pace,
): Promise<void> {
  const p = new Parser(grammar);
  for (let n = 1; p.next(); n++) if (n % SLICE === 0) await between();
  p.finish();
  const left = new LeftRecursionCheck(p.rules, (rule, why) => p.fail(p.names[rule] ?? '', why));
  for (let root = 0; root < p.rules.length; root++) {
    if (root % SLICE === 0) await between();
    left.check(root);
  }
}

/** Rules read (or checked) between two yields of the paced check. */
const SLICE = 256;

class Parser {
  readonly ids = new Map<string, number>();
  readonly names: string[] = [];
  readonly rules: number[][] = [];
  private at = 0;
  private elements = 0;
  private ruleName = '';

  constructor(private readonly src: string) {}

  /** Reads the next rule; false once the text is read. */
  next(): boolean {
    if (this.at === 0) this.space(true);
    if (this.at >= this.src.length) return false;
    this.rule();
    return true;
  }

  /** The checks once every rule is read: a root, and no rule used but undefined. */
  finish(): void {
    if (!this.ids.has('root')) this.fail('root', 'it has no root rule');
    for (const [id, rule] of this.rules.entries()) {
      if (rule === undefined || rule.length === 0) this.fail(this.names[id] ?? '', 'a rule is undefined');
    }
    for (let id = this.rules.length; id < this.names.length; id++)
      this.fail(this.names[id] ?? '', 'a rule is undefined');
  }

  fail(rule: string, why: string): never {
    throw new LlamaGrammarError(rule, `${TOO_COMPLEX} (llama.cpp would refuse its grammar: ${why}).`);
  }

  private symbol(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  /** A rule llama.cpp generates (`name_id`); kept under its parent's name, which errors report. */
  private generated(): number {
    const id = this.names.length;
    this.names.push(this.ruleName);
    return id;
  }

  private add(id: number, rule: number[]): void {
    this.elements += rule.length;
    if (this.elements > MAX_LLAMA_ELEMENTS) {
      this.fail(this.ruleName, `expanded, it exceeds ${MAX_LLAMA_ELEMENTS} elements`);
    }
    this.rules[id] = rule;
  }

  private space(newlines: boolean): void {
    const s = this.src;
    for (;;) {
      const c = s.charCodeAt(this.at);
      if (c === 0x23) {
        while (this.at < s.length && s[this.at] !== '\n' && s[this.at] !== '\r') this.at++;
      } else if (c === 0x20 || c === 0x09 || (newlines && (c === 0x0a || c === 0x0d))) this.at++;
      else return;
    }
  }

  private name(): string {
    const start = this.at;
    while (isWordChar(this.src.charCodeAt(this.at))) this.at++;
    if (this.at === start) this.fail(this.ruleName, `a name was expected at offset ${start}`);
    return this.src.slice(start, this.at);
  }

  private rule(): void {
    const name = this.name();
    this.space(false);
    const id = this.symbol(name);
    this.ruleName = name;
    if (!this.src.startsWith('::=', this.at)) this.fail(name, `'::=' was expected at offset ${this.at}`);
    this.at += 3;
    this.space(true);
    this.alternates(id, false, 0);
    const c = this.src[this.at];
    if (c === '\r') this.at += this.src[this.at + 1] === '\n' ? 2 : 1;
    else if (c === '\n') this.at++;
    else if (c !== undefined) this.fail(name, `a newline was expected at offset ${this.at}`);
    this.space(true);
  }

  private alternates(id: number, nested: boolean, depth: number): void {
    if (depth > MAX_GROUP_DEPTH)
      this.fail(this.ruleName, `groups nest deeper than ${MAX_GROUP_DEPTH} levels`);
    const rule: number[] = [];
    this.sequence(rule, nested, depth);
    while (this.src[this.at] === '|') {
      rule.push(ALT);
      this.at++;
      this.space(true);
      this.sequence(rule, nested, depth);
    }
    rule.push(END);
    this.add(id, rule);
  }

  /** One char of a literal or class, as llama.cpp's `parse_char` reads it. */
  private char(): void {
    if (this.src[this.at] === '\\') {
      const e = this.src[this.at + 1];
      const len = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      this.at += 2 + len;
    } else {
      const cp = this.src.codePointAt(this.at) as number;
      this.at += cp > 0xffff ? 2 : 1;
    }
  }

  private sequence(rule: number[], nested: boolean, depth: number): void {
    const s = this.src;
    let lastStart = rule.length;
    let prevRules = 1;
    for (;;) {
      const c = s[this.at];
      if (c === '"') {
        this.at++;
        lastStart = rule.length;
        prevRules = 1;
        while (s[this.at] !== '"') {
          if (this.at >= s.length) this.fail(this.ruleName, 'a literal is unterminated');
          this.char();
          rule.push(TERMINAL);
        }
        this.at++;
        this.space(nested);
      } else if (c === '[') {
        this.at++;
        if (s[this.at] === '^') this.at++;
        lastStart = rule.length;
        prevRules = 1;
        while (s[this.at] !== ']') {
          if (this.at >= s.length) this.fail(this.ruleName, 'a class is unterminated');
          this.char();
          rule.push(TERMINAL);
          if (s[this.at] === '-' && s[this.at + 1] !== ']') {
            this.at++;
            this.char();
            rule.push(TERMINAL);
          }
        }
        this.at++;
        this.space(nested);
      } else if (c !== undefined && isWordChar(c.charCodeAt(0))) {
        const ref = this.symbol(this.name());
        this.space(nested);
        lastStart = rule.length;
        prevRules = 1;
        rule.push(ref);
      } else if (c === '(') {
        this.at++;
        this.space(true);
        const before = this.names.length;
        const sub = this.generated();
        this.alternates(sub, true, depth + 1);
        prevRules = Math.max(1, this.names.length - before);
        lastStart = rule.length;
        rule.push(sub);
        if (s[this.at] !== ')') this.fail(this.ruleName, `')' was expected at offset ${this.at}`);
        this.at++;
        this.space(nested);
      } else if (c === '.') {
        lastStart = rule.length;
        prevRules = 1;
        rule.push(TERMINAL);
        this.at++;
        this.space(nested);
      } else if (c === '*' || c === '+' || c === '?') {
        this.at++;
        this.space(nested);
        prevRules = this.repeat(rule, lastStart, prevRules, c === '+' ? 1 : 0, c === '?' ? 1 : null);
      } else if (c === '{') {
        this.at++;
        this.space(nested);
        const min = this.int();
        this.space(nested);
        let max: number | null = min;
        if (s[this.at] === ',') {
          this.at++;
          this.space(nested);
          max = isDigit(s.charCodeAt(this.at)) ? this.int() : null;
          this.space(nested);
        }
        if (s[this.at] !== '}') this.fail(this.ruleName, `'}' was expected at offset ${this.at}`);
        this.at++;
        this.space(nested);
        if (min > LLAMA_MAX_REPETITIONS || (max !== null && max > LLAMA_MAX_REPETITIONS)) {
          this.fail(this.ruleName, `a repetition count is above ${LLAMA_MAX_REPETITIONS}`);
        }
        prevRules = this.repeat(rule, lastStart, prevRules, min, max);
      } else return;
    }
  }

  private int(): number {
    const start = this.at;
    while (isDigit(this.src.charCodeAt(this.at))) this.at++;
    if (this.at === start) this.fail(this.ruleName, `a number was expected at offset ${start}`);
    return Number(this.src.slice(start, this.at));
  }

  /** `handle_repetitions`: S{m,n} as m copies of S then n-m nested optional rules. */
  private repeat(
    rule: number[],
    lastStart: number,
    prevRules: number,
    min: number,
    max: number | null,
  ): number {
    if (lastStart === rule.length) this.fail(this.ruleName, 'a quantifier follows nothing');
    const prev = rule.slice(lastStart);
    const total = max !== null && max > 0 ? max : min > 0 ? min : 1;
    // llama.cpp's master refuses at `>=`; the build in @wllama/wllama 3.8.1 runs `x{0,2000}` (checked in
    // Chromium), so the limit here is the one that build keeps.
    if (prevRules * total > LLAMA_MAX_REPETITIONS) {
      this.fail(
        this.ruleName,
        `a repetition times the rules its item generates exceeds ${LLAMA_MAX_REPETITIONS}`,
      );
    }
    const opt = max === null ? 1 : max - min;
    if (this.elements + (Math.max(0, min - 1) + opt) * (prev.length + 3) > MAX_LLAMA_ELEMENTS) {
      this.fail(this.ruleName, `expanded, it exceeds ${MAX_LLAMA_ELEMENTS} elements`);
    }
    if (min === 0) rule.length = lastStart;
    else for (let i = 1; i < min; i++) for (const e of prev) rule.push(e);
    let last = 0;
    for (let i = 0; i < opt; i++) {
      const id = this.generated();
      const rec = [...prev];
      if (i > 0 || max === null) rec.push(max === null ? id : last);
      rec.push(ALT, END);
      this.add(id, rec);
      last = id;
    }
    if (opt > 0) rule.push(last);
    return prevRules * total;
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `is_word_char`: letters, digits and `-`. */
function isWordChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || isDigit(c) || c === 0x2d;
}
