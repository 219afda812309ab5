/**
 * The Lark subset a `custom` tool's `{syntax:'lark'}` grammar may use (LLGuidance's Lark, which
 * OpenAI's CFG tools run): rules and terminals (`name: …`, `NAME: …`, a priority `.n` ignored),
 * `|` alternatives (also at the start of a continuation line), sequences, `( … )` groups, `[ … ]`
 * optionals, `?` `*` `+`, `~ n` and `~ n..m` repetitions, `"literal"`s, `"a".."z"` ranges, `/regex/`
 * terminals, `-> alias`es (ignored: they name tree nodes, not text) and `//` comments. Directives
 * (`%ignore`, `%import`, …), case-insensitive literals, regex flags and LLGuidance's extensions are
 * refused by name. Read in one pass over its tokens; group nesting and the rule count are bounded.
 */
import { clip } from '../../common/api-error';
import {
  CustomGrammarError,
  MAX_DEFINITION_CHARS,
  MAX_LARK_DEPTH,
  MAX_LARK_RULES,
  MAX_REPEAT,
} from './limits';
import { checkRegex } from './regex-definition';

/** A parsed Lark expression. */
export type LarkExpr =
  | { kind: 'alt'; options: LarkExpr[] }
  | { kind: 'seq'; items: LarkExpr[] }
  | { kind: 'repeat'; node: LarkExpr; min: number; max: number | null }
  | { kind: 'literal'; text: string }
  | { kind: 'range'; lo: number; hi: number }
  | { kind: 'regex'; source: string }
  | { kind: 'ref'; name: string };

/** A parsed grammar: each rule's and terminal's expression, by name (`start` among them). */
export type LarkGrammar = Map<string, LarkExpr>;

type Token =
  | { t: 'name'; v: string }
  | { t: 'string'; v: string }
  | { t: 'regex'; v: string }
  | { t: 'number'; v: number }
  | { t: 'op'; v: string }
  | { t: 'nl' };

const NAME = /[?!]?[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /[0-9]+/y;
const OPS = ['->', '..', ':', '|', '?', '*', '+', '(', ')', '[', ']', '~', '.'];

function fail(why: string): never {
  throw new CustomGrammarError(`The Lark grammar cannot be used: ${why}.`);
}

/** The tokens of `text`, newlines kept (a definition ends at one). */
function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\r') i++;
    else if (c === '\n') {
      out.push({ t: 'nl' });
      i++;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '%') {
      NAME.lastIndex = i + 1;
      fail(`the directive '%${clip(NAME.exec(text)?.[0] ?? '', 40)}' is not supported`);
    } else if (c === '"') i = readString(text, i, out);
    else if (c === '/') i = readRegex(text, i, out);
    else if (/[0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text) as RegExpExecArray;
      out.push({ t: 'number', v: Number(m[0]) });
      i += m[0].length;
    } else {
      NAME.lastIndex = i;
      const m = NAME.exec(text);
      if (m) {
        out.push({ t: 'name', v: m[0] });
        i += m[0].length;
        continue;
      }
      const op = OPS.find((o) => text.startsWith(o, i));
      if (!op) fail(`the character '${clip(c, 10)}' is not supported`);
      out.push({ t: 'op', v: op });
      i += op.length;
    }
  }
  return out;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/' };

/** A `"…"` literal from `i` (its escapes decoded); returns the index after it. */
function readString(text: string, i: number, out: Token[]): number {
  let v = '';
  let j = i + 1;
  for (;;) {
    const c = text[j];
    if (c === undefined || c === '\n') fail('an unterminated string');
    if (c === '"') break;
    if (c === '\\') {
      const e = text[j + 1] as string;
      if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) {
        v += String.fromCharCode(Number.parseInt(text.slice(j + 2, j + 6), 16));
        j += 6;
        continue;
      }
      if (!(e in ESCAPES)) fail(`the string escape '\\${clip(e ?? '', 4)}' is not supported`);
      v += ESCAPES[e];
      j += 2;
      continue;
    }
    v += c;
    j++;
  }
  if (text[j + 1] === 'i') fail('case-insensitive literals ("…"i) are not supported');
  out.push({ t: 'string', v });
  return j + 1;
}

/** A `/…/` terminal from `i` (its body as written); returns the index after it. */
function readRegex(text: string, i: number, out: Token[]): number {
  let j = i + 1;
  let inClass = false;
  for (;;) {
    const c = text[j];
    if (c === undefined || c === '\n') fail('an unterminated regex');
    if (c === '\\') j += 2;
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
      j++;
    }
  }
  const flags = /^[a-z]+/.exec(text.slice(j + 1, j + 10));
  if (flags) fail(`regex flags ('/…/${clip(flags[0], 10)}') are not supported`);
  out.push({ t: 'regex', v: text.slice(i + 1, j) });
  return j + 1;
}

/** Recursive descent over the tokens, one definition per line (continued by a leading `|`). */
class Parser {
  private at = 0;
  private depth = 0;
  readonly defs: LarkGrammar = new Map();

  constructor(private readonly tokens: Token[]) {}

  parse(): LarkGrammar {
    for (;;) {
      while (this.peek()?.t === 'nl') this.at++;
      const tok = this.tokens[this.at++];
      if (tok === undefined) break;
      if (tok.t !== 'name') fail('each line must start with a rule or terminal name');
      const name = tok.v.replace(/^[?!]/, '');
      if (this.peekOp('.')) {
        this.at++;
        if (this.tokens[this.at++]?.t !== 'number') fail(`a bad priority on '${clip(name, 60)}'`);
      }
      if (!this.peekOp(':')) fail(`expected ':' after '${clip(name, 60)}'`);
      this.at++;
      if (this.defs.has(name)) fail(`'${clip(name, 60)}' is defined twice`);
      if (this.defs.size >= MAX_LARK_RULES) fail(`more than ${MAX_LARK_RULES} rules and terminals`);
      this.defs.set(name, this.alternatives(true));
    }
    return this.defs;
  }

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private peekOp(v: string): boolean {
    const t = this.peek();
    return t?.t === 'op' && t.v === v;
  }

  /** `a | b | …`; at the top of a definition a newline followed by `|` continues it. */
  private alternatives(top: boolean): LarkExpr {
    const options = [this.sequence()];
    for (;;) {
      let k = this.at;
      if (top) while (this.tokens[k]?.t === 'nl') k++;
      const t = this.tokens[k];
      if (!(t?.t === 'op' && t.v === '|')) break;
      this.at = k + 1;
      options.push(this.sequence());
    }
    return options.length === 1 ? (options[0] as LarkExpr) : { kind: 'alt', options };
  }

  private sequence(): LarkExpr {
    const items: LarkExpr[] = [];
    for (let t = this.peek(); t !== undefined && t.t !== 'nl'; t = this.peek()) {
      if (t.t === 'op' && (t.v === '|' || t.v === ')' || t.v === ']')) break;
      if (t.t === 'op' && t.v === '->') {
        this.at++;
        if (this.tokens[this.at++]?.t !== 'name') fail("expected an alias name after '->'");
        break;
      }
      items.push(this.quantified(this.atom()));
    }
    return items.length === 1 ? (items[0] as LarkExpr) : { kind: 'seq', items };
  }

  private quantified(node: LarkExpr): LarkExpr {
    const t = this.peek();
    if (t?.t !== 'op') return node;
    if (t.v === '?' || t.v === '*' || t.v === '+') {
      this.at++;
      const [min, max] = t.v === '?' ? [0, 1] : t.v === '*' ? [0, null] : [1, null];
      if (this.peek()?.t === 'op' && ['?', '*', '+', '~'].includes((this.peek() as { v: string }).v))
        fail('a quantifier after a quantifier');
      return { kind: 'repeat', node, min, max };
    }
    if (t.v !== '~') return node;
    this.at++;
    const lo = this.number();
    let hi = lo;
    if (this.peekOp('..')) {
      this.at++;
      hi = this.number();
    }
    if (hi < lo) fail(`a repetition ~ ${lo}..${hi} whose maximum is below its minimum`);
    if (hi > MAX_REPEAT) fail(`a repetition bound above ${MAX_REPEAT}`);
    return { kind: 'repeat', node, min: lo, max: hi };
  }

  private number(): number {
    const t = this.tokens[this.at++];
    if (t?.t !== 'number') fail("expected a number after '~'");
    return t.v;
  }

  private atom(): LarkExpr {
    const t = this.tokens[this.at++] as Token;
    if (t.t === 'string') {
      if (!this.peekOp('..')) return { kind: 'literal', text: t.v };
      this.at++;
      const hi = this.tokens[this.at++];
      const one = (s: string) => [...s].length === 1;
      if (hi?.t !== 'string' || !one(t.v) || !one(hi.v)) fail('a range must join two one-character strings');
      const [a, b] = [t.v.codePointAt(0) as number, hi.v.codePointAt(0) as number];
      if (b < a) fail('a range whose end is below its start');
      return { kind: 'range', lo: a, hi: b };
    }
    if (t.t === 'regex') {
      checkRegex(t.v);
      return { kind: 'regex', source: t.v };
    }
    if (t.t === 'name') {
      if (/^[?!]/.test(t.v)) fail(`'${clip(t.v, 60)}' is not a name`);
      return { kind: 'ref', name: t.v };
    }
    if (t.t === 'op' && (t.v === '(' || t.v === '[')) {
      if (++this.depth > MAX_LARK_DEPTH) fail(`groups nest deeper than ${MAX_LARK_DEPTH}`);
      const inner = this.alternatives(false);
      const close = t.v === '(' ? ')' : ']';
      if (!this.peekOp(close)) fail(`an unclosed '${t.v}'`);
      this.at++;
      this.depth--;
      return t.v === '(' ? inner : { kind: 'repeat', node: inner, min: 0, max: 1 };
    }
    return fail(`unexpected '${t.t === 'op' ? t.v : t.t}'`);
  }
}

/**
 * The rules and terminals of `definition`; it must define `start`.
 *
 * @example
 * parseLark('start: "a" NUM\nNUM: /[0-9]+/'); // Map { 'start' => {kind:'seq',…}, 'NUM' => {kind:'regex',…} }
 */
export function parseLark(definition: string): LarkGrammar {
  if (definition.length > MAX_DEFINITION_CHARS)
    throw new CustomGrammarError(`The Lark grammar is longer than ${MAX_DEFINITION_CHARS} characters.`);
  const defs = new Parser(tokenize(definition)).parse();
  if (!defs.has('start')) fail("it has no 'start' rule");
  return defs;
}
