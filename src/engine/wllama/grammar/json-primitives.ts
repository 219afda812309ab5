/**
 * The GBNF rules every JSON grammar shares: whitespace, strings, numbers, any JSON value, and the
 * string formats a grammar can hold to (date, time, date-time, uuid, email).
 *
 * Whitespace between tokens is bounded (one newline or space plus at most 20 spaces or tabs): an
 * unbounded `ws*` lets a small model write spaces until `max_output_tokens`.
 */

/** Each primitive's body, by rule name. */
export const PRIMITIVES: Record<string, string> = {
  ws: '([ \\t\\n] [ \\t]{0,20})?',
  comma: 'ws "," ws',
  'json-char': '[^"\\\\\\x7f\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})',
  'json-string': '"\\"" json-char* "\\""',
  'json-int': '"-"? json-nat',
  'json-nat': '[0-9] | [1-9] [0-9]{0,15}',
  'json-number': '"-"? json-nat ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?',
  'json-number-nonneg': 'json-nat ("." [0-9]{1,16})?',
  'json-boolean': '"true" | "false"',
  'json-null': '"null"',
  'json-value': 'json-object | json-array | json-string | json-number | json-boolean | json-null',
  'json-object':
    '"{" ws (json-string ws ":" ws json-value (ws "," ws json-string ws ":" ws json-value)*)? ws "}"',
  'json-array': '"[" ws (json-value (ws "," ws json-value)*)? ws "]"',
  date: '[0-9]{4} "-" (("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | "02-" ("0" [1-9] | "1" [0-9] | "2" [0-8]))',
  time: '([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,3})? ("Z" | [+-] ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9])',
  'date-time': 'date "T" time',
  uuid: '[0-9a-f]{8} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{12}',
  email:
    '[a-z0-9]{1,20} ("." [a-z0-9]{1,20}){0,2} "@" [a-z0-9]{1,20} ("." [a-z0-9]{1,20}){0,2} "." [a-z]{2,6}',
};

/** Which primitives each primitive uses, so only what a grammar needs is written out. */
export const PRIMITIVE_DEPS: Record<string, string[]> = {
  comma: ['ws'],
  'json-string': ['json-char'],
  'json-int': ['json-nat'],
  'json-number': ['json-nat'],
  'json-number-nonneg': ['json-nat'],
  'json-value': ['json-object', 'json-array', 'json-string', 'json-number', 'json-boolean', 'json-null'],
  'json-object': ['ws', 'json-string', 'json-value'],
  'json-array': ['ws', 'json-value'],
  'date-time': ['date', 'time'],
};

/** The string formats with a primitive of their own. */
export const FORMATS = ['date', 'time', 'date-time', 'uuid', 'email'];
