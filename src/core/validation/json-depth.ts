/**
 * JSON parsing with a bound on nesting. `JSON.parse` itself copes with any depth, but what runs on
 * the value afterwards does not: error messages, token counting and the store's structured clone all
 * recurse, and a 10,000-deep value of 60 KB overflowed the stack there (a 500). So depth is checked
 * on the text, before parsing, in one pass that never recurses.
 */

import { pace } from '../../common/pace';

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
  return scan({ i: 0, depth: 0, inString: false }, text, text.length, max);
}

/**
 * {@link jsonDepthExceeds} in slices of {@link SLICE_CHARS} characters with {@link pace} between them:
 * a body near the 16 MiB cap took 30-130 ms in one pass, on the worker every tab shares.
 *
 * @example
 * if (await jsonDepthExceedsPaced(text)) throw invalidRequest(null, TOO_DEEP);
 */
export async function jsonDepthExceedsPaced(text: string, max = MAX_JSON_DEPTH): Promise<boolean> {
  const state: ScanState = { i: 0, depth: 0, inString: false };
  while (state.i < text.length) {
    if (scan(state, text, Math.min(text.length, state.i + SLICE_CHARS), max)) return true;
    await pace();
  }
  return false;
}

/** Characters scanned between two chances to yield (a millisecond or so). */
const SLICE_CHARS = 1 << 20;

/** Where a scan stands: the next index, the depth there, whether it is inside a string. */
type ScanState = { i: number; depth: number; inString: boolean };

/** Scans `text` from `state.i` up to `end`, updating `state`; true once the depth passes `max`. */
function scan(state: ScanState, text: string, end: number, max: number): boolean {
  let { i, depth, inString } = state;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  state.i = i;
  state.depth = depth;
  state.inString = inString;
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
