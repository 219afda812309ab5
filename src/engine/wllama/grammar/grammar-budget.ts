/**
 * The bounds on every grammar intab hands llama.cpp, in one place: what a conversion may cost, how
 * big its grammar may grow, and the limits llama.cpp's own grammar parser enforces (a grammar past
 * them is refused by llama.cpp, or overflows its stack, only after the model is downloaded and
 * loaded, so they are checked here first).
 */

/**
 * Largest grammar text, in bytes (UTF-16 code units): a bigger one is a 400, never a partial grammar.
 * A legitimate 450 KB schema (60 definitions of 30 described properties) needs about 260 KB.
 */
export const MAX_GRAMMAR_BYTES = 1024 * 1024;

/** Most named rules one grammar may hold. */
export const MAX_GRAMMAR_RULES = 20_000;

/**
 * Most schema nodes (and members) one conversion may visit. A legitimate schema under the body cap
 * needs far fewer; a schema built to re-expand shared parts (`anyOf` beside large `properties`,
 * say) stops here instead of holding the engine worker.
 */
export const MAX_CONVERSION_STEPS = 200_000;

/** Deepest nesting of schemas (or regex groups) a conversion follows before it answers a 400. */
export const MAX_SCHEMA_DEPTH = 128;

/**
 * llama.cpp's `MAX_REPETITION_THRESHOLD` (src/llama-grammar.cpp): a `{m,n}` with m or n above it is
 * refused (or, in newer builds, run without its upper bound: a `maxLength` llama.cpp no longer holds),
 * and so is one whose count times the rules its repeated item generates exceeds it. `{0,2000}` runs
 * in the build of @wllama/wllama 3.8.1 (checked in Chromium).
 */
export const LLAMA_MAX_REPETITIONS = 2000;

/**
 * Most grammar elements llama.cpp may hold once it has expanded every `{m,n}` into rules: bounds the
 * memory the grammar takes in llama.cpp, whatever its text size.
 */
export const MAX_LLAMA_ELEMENTS = 1_000_000;

/**
 * Deepest parenthesis nesting in one rule: llama.cpp's parser recurses once per level, and 3000
 * levels overflow its WebAssembly stack (the instance is lost).
 */
export const MAX_GROUP_DEPTH = 64;

/**
 * Longest chain of rules llama.cpp's left-recursion check recurses through (rules that may start
 * with the next one, such as a chain of optional properties): it recurses once per rule.
 */
export const MAX_LEFT_CHAIN = 2_500;

/**
 * Most rule visits of llama.cpp's left-recursion check (which, unlike a plain search, walks a rule
 * again each time another rule starts with it): bounds its time at grammar load.
 */
export const MAX_LEFT_VISITS = 2_000_000;

/** A grammar past one of the bounds above; `path` (JSON Pointer, or '') says where, when known. */
export class GrammarTooComplexError extends Error {
  override readonly name = 'GrammarTooComplexError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** The sentence every budget error ends with, so a client knows what to do about it. */
export const TOO_COMPLEX = 'The schema is too complex for the local grammar engine (llama.cpp): simplify it';

/**
 * A conversion's step counter: {@link tick} throws past {@link MAX_CONVERSION_STEPS}.
 *
 * @example
 * const steps = new StepBudget();
 * steps.tick('/properties/a'); // once per schema node
 */
export class StepBudget {
  private used = 0;
  constructor(private readonly max = MAX_CONVERSION_STEPS) {}

  tick(path: string, n = 1): void {
    this.used += n;
    if (this.used > this.max) {
      throw new GrammarTooComplexError(
        path,
        `${TOO_COMPLEX} (its conversion to a grammar takes more than ${this.max} steps).`,
      );
    }
  }
}
