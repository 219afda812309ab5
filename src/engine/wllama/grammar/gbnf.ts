/**
 * Writing llama.cpp GBNF: literals and character classes escaped the way llama.cpp's grammar parser
 * reads them, and a builder that names rules uniquely (GBNF rule names are letters, digits and `-`).
 */
import {
  GrammarTooComplexError,
  MAX_GRAMMAR_BYTES,
  MAX_GRAMMAR_RULES,
  StepBudget,
  TOO_COMPLEX,
} from './grammar-budget';

/**
 * A GBNF string literal matching `text` exactly.
 *
 * @example
 * gbnfLiteral('{"a": 1}'); // '"{\\"a\\": 1}"'
 */
export function gbnfLiteral(text: string): string {
  let out = '"';
  for (const ch of text) out += escapeChar(ch, '"');
  return `${out}"`;
}

/**
 * One character as it may appear inside a GBNF literal (`quote` '"') or class (`quote` ']').
 * Everything outside printable ASCII, and every character the parser treats specially, is written
 * as a hex escape, which llama.cpp's `parse_char` always reads.
 */
function escapeChar(ch: string, quote: '"' | ']'): string {
  const cp = ch.codePointAt(0) as number;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  if (ch === '\\') return '\\\\';
  if (ch === quote || (quote === ']' && (ch === '^' || ch === '-' || ch === '['))) return hex(cp);
  if (cp < 0x20 || cp === 0x7f) return hex(cp);
  if (cp > 0xffff) return `\\U${cp.toString(16).padStart(8, '0')}`;
  return ch;
}

function hex(cp: number): string {
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** An inclusive range of code points. */
export type CodeRange = readonly [number, number];

/**
 * A GBNF character class of `ranges` (negated with `negate`).
 *
 * @example
 * gbnfClass([[0x30, 0x39]]); // '[0-9]'
 * gbnfClass([[0x22, 0x22], [0x5c, 0x5c]], true); // '[^\\x22\\\\]'
 */
export function gbnfClass(ranges: readonly CodeRange[], negate = false): string {
  const body = ranges
    .map(([lo, hi]) => {
      const a = escapeChar(String.fromCodePoint(lo), ']');
      return lo === hi ? a : `${a}-${escapeChar(String.fromCodePoint(hi), ']')}`;
    })
    .join('');
  return `[${negate ? '^' : ''}${body}]`;
}

/**
 * Collects named rules. `add` returns the name of a rule with the same body if there is one (rules
 * are keyed and reused by content, as llama.cpp's json-schema-to-grammar does), else a name not used
 * before (a counter per base name, so naming stays linear); `define` reserves a name first and fills
 * it later, for recursive rules. Past {@link MAX_GRAMMAR_BYTES} or {@link MAX_GRAMMAR_RULES} it
 * throws {@link GrammarTooComplexError}: a grammar is whole or not at all.
 *
 * @example
 * const g = new GbnfBuilder();
 * g.add('root', '"a" | "b"');
 * g.toString(); // 'root ::= "a" | "b"\n'
 */
export class GbnfBuilder {
  /** The conversion steps of everything that writes into this grammar (every schema of a request). */
  readonly steps = new StepBudget();
  private readonly rules = new Map<string, string>();
  private readonly byBody = new Map<string, string>();
  private readonly counters = new Map<string, number>();
  private bytes = 0;

  /** Adds a rule (or reuses the one with the same body); returns its name. */
  add(name: string, body: string): string {
    const known = this.byBody.get(body);
    if (known !== undefined) return known;
    const fresh = this.reserve(name);
    this.fill(fresh, body);
    this.byBody.set(body, fresh);
    return fresh;
  }

  /** Adds `body` under exactly `name` unless that rule exists already (shared primitives). */
  shared(name: string, body: string): string {
    if (!this.rules.has(name)) {
      this.rules.set(name, '');
      this.fill(name, body);
    }
    return name;
  }

  /** A fresh name whose body comes later through {@link fill}. */
  reserve(name: string): string {
    const base = sanitize(name);
    let fresh = base;
    let i = this.counters.get(base) ?? 0;
    while (this.rules.has(fresh)) fresh = `${base}-${++i}`;
    this.counters.set(base, i);
    this.rules.set(fresh, '');
    if (this.rules.size > MAX_GRAMMAR_RULES) {
      throw new GrammarTooComplexError(
        '',
        `${TOO_COMPLEX} (its grammar needs more than ${MAX_GRAMMAR_RULES} rules).`,
      );
    }
    return fresh;
  }

  fill(name: string, body: string): void {
    this.bytes += body.length - (this.rules.get(name)?.length ?? 0) + name.length + 6;
    if (this.bytes > MAX_GRAMMAR_BYTES) {
      throw new GrammarTooComplexError(
        '',
        `${TOO_COMPLEX} (its grammar would exceed ${MAX_GRAMMAR_BYTES / 1024} KiB).`,
      );
    }
    this.rules.set(name, body);
  }

  has(name: string): boolean {
    return this.rules.has(name);
  }

  /**
   * The grammar text: the first rule (root) first, then the others newest first. Rules are built
   * bottom-up, so this writes each rule before the rules it uses, and llama.cpp numbers a chain of
   * rules (optional properties, say) in chain order, which its left-recursion check then walks once
   * instead of once per link.
   */
  toString(): string {
    const all = [...this.rules];
    const [first, ...rest] = all;
    return [...(first ? [first] : []), ...rest.reverse()]
      .map(([name, body]) => `${name} ::= ${body}\n`)
      .join('');
  }
}

/** A GBNF rule name: letters, digits and dashes only. */
function sanitize(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  return s === '' ? 'r' : s;
}
