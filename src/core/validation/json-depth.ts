/**
 * JSON parsing with a bound on nesting. `JSON.parse` itself copes with any depth, but what runs on
 * the value afterwards does not: error messages, token counting and the store's structured clone all
 * recurse, and a 10,000-deep value of 60 KB overflowed the stack there (a 500). So depth is checked
 * on the text, before parsing, in one pass that never recurses.
 */

/**
 * The most levels of objects and arrays a request body may nest (the body itself is level 1). A
 * strict schema nests at most 10 objects deep (OpenAI's limit), which is about 50 levels here.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether the JSON text `text` nests objects and arrays deeper than `max`. Brackets inside strings
 * are text and do not count. One linear scan; the text need not be valid JSON (the parser says so).
 *
 * @example
 * jsonDepthExceeds('{"a":[[1]]}', 2) // → true: three levels
 * jsonDepthExceeds('{"a":"[[["}', 1) // → false
 */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

/**
 * `JSON.parse`, or undefined for text that is not JSON or nests deeper than `max`: for JSON that
 * comes from outside (an `encrypted_content` handed back, say).
 *
 * @example
 * parseJsonBounded('[[[1]]]', 2) // → undefined
 * parseJsonBounded('{"a":1}')    // → { a: 1 }
 */
export function parseJsonBounded(text: string, max = MAX_JSON_DEPTH): unknown {
  if (jsonDepthExceeds(text, max)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
