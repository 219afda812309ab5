import { RE2JS } from 're2js';
import { usePatternTest } from './json-schema-check';

/**
 * A schema's `pattern`s, compiled for RE2 (re2js), which matches in time linear in the text. Loading
 * this module installs RE2 as the engine the strict output check runs patterns on: it comes with
 * `request-schema.ts`, which checks every request's schema before any output under it is checked.
 */

type Compiled = { re: RE2JS | null; problem: string | null };
const compiled = new Map<string, Compiled>();

/**
 * Why `pattern` cannot serve as a schema pattern, or null when it can: it must be an ECMAScript
 * regular expression (what JSON Schema specifies, and what grammar engines read) and compile on RE2,
 * which matches in time linear in the text (so no lookarounds and no backreferences).
 *
 * @example
 * regexProblem('^[a-z]+$') // → null
 * regexProblem('(')        // → 'missing closing ): `(`'
 */
export function regexProblem(pattern: string): string | null {
  return compile(pattern).problem;
}

/** Compiles once per pattern: a schema may repeat one pattern thousands of times. A few hundred are kept. */
function compile(pattern: string): Compiled {
  let c = compiled.get(pattern);
  if (c) return c;
  c = { re: null, problem: null };
  try {
    c.re = RE2JS.compile(pattern);
    new RegExp(pattern, 'u');
  } catch (err) {
    c.re = null;
    c.problem = String((err as Error).message).replace(/^error parsing regexp: /, '');
  }
  if (compiled.size >= 512) compiled.clear();
  compiled.set(pattern, c);
  return c;
}

usePatternTest((pattern, text) => compile(pattern).re?.test(text) ?? null);
