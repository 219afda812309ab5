/**
 * The bounds on a `custom` tool's grammar (issue 45). Both converters read a definition once and
 * write at most {@link MAX_INPUT_PATTERN} characters, so their work is linear in what they read and
 * bounded in what they write; past any bound the request is a 400 naming the bound.
 */

/** Longest `format.definition` read: OpenAI's CFG definitions are small; a longer one is refused unread. */
export const MAX_DEFINITION_CHARS = 16_384;

/** Most rules and terminals a Lark definition may declare. */
export const MAX_LARK_RULES = 256;

/** Deepest nesting of groups (`(…)`, `[…]`) in a Lark definition, and of references followed. */
export const MAX_LARK_DEPTH = 64;

/**
 * Largest bound of a repetition (`{m,n}` in a regex, `~ n..m` in Lark): llama.cpp expands a bounded
 * repetition into that many copies, so a larger one would cost the grammar more than its text says.
 */
export const MAX_REPEAT = 1000;

/**
 * Longest regular expression a definition may become (a Lark rule used twice is written twice):
 * what keeps the output bounded whatever the sharing in the input.
 */
export const MAX_INPUT_PATTERN = 65_536;

/** A definition the subset cannot express, or one past a bound: a 400 on `param`. */
export class CustomGrammarError extends Error {
  override readonly name = 'CustomGrammarError';
}
