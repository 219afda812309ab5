/**
 * A tool call's arguments as the model writes them: once a call region names its tool and opens
 * its arguments, the arguments' JSON text streams out as it grows, up to the end of that value.
 */
import { JsonValueScanner } from '../../common/json-scan';

/** A partly written call's arguments, followed through its growing region. */
export interface ArgumentsStream {
  /** The arguments' JSON text added since the last look at the region (which only grows). */
  next(region: string): string;
}

/** A partly written call: the tool it names, and its arguments as they come. */
export interface PartialCallHead {
  name: string;
  arguments: ArgumentsStream;
}

/** `{"name": "f", "arguments": ` (or `"parameters"`), maybe inside a list's `[`, at the head of a call. */
const JSON_CALL_HEAD = /^\s*\[?\s*\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"(?:arguments|parameters)"\s*:/;

/**
 * For formats that write `{"name": …, "arguments": {…}}` after a marker of `head` characters: the
 * name and the arguments' stream, once the text has reached them; null before (or never).
 *
 * @example
 * jsonArgumentsStart('<tool_call>\n{"name": "python", "arguments": {"co', 11)?.name; // 'python'
 */
export function jsonArgumentsStart(region: string, head: number): PartialCallHead | null {
  const m = JSON_CALL_HEAD.exec(region.slice(head));
  if (!m) return null;
  let name: unknown;
  try {
    name = JSON.parse(m[1] as string);
  } catch {
    return null;
  }
  return typeof name === 'string' ? { name, arguments: new JsonArguments(head + m[0].length) } : null;
}

/**
 * Follows one call's arguments through its growing region: `next(region)` returns the arguments
 * text added since the last call, stopping at the end of the JSON value. Linear: each character is
 * scanned once (the scanner goes on from where the last look stopped). Arguments that are not an
 * object stop it (no more deltas; the whole call decides).
 *
 * @example
 * const p = new JsonArguments(41);
 * p.next('<tool_call>\n{"name": "python", "arguments": {"co'); // '{"co'
 */
export class JsonArguments implements ArgumentsStream {
  private at: number;
  private readonly value = new JsonValueScanner('object');

  constructor(at: number) {
    this.at = at;
  }

  next(region: string): string {
    if (this.value.done) return '';
    const end = this.value.scan(region, this.at);
    // Whitespace before the value is not the arguments'.
    const from = Math.max(this.at, this.value.start);
    this.at = end < 0 ? Math.max(this.at, region.length) : end;
    return this.value.start < 0 || this.value.refused ? '' : region.slice(from, this.at);
  }
}
