/**
 * Where a JSON value ends inside text that goes on past it (a tool call followed by prose or by the
 * next call, a field followed by the rest of its object), found while the text still streams in.
 * Only strings and brackets are tracked: whether the value is valid is JSON.parse's to say.
 */

/**
 * Which values a scanner takes; the first other character it meets (past whitespace) refuses the
 * scan. `object`: `{…}` (a call's arguments); `container`: `{…}` or `[…]` (a call or a list of
 * calls); `any`: also a string, a number or a literal (a field's value inside an object).
 */
export type JsonValueKinds = 'object' | 'container' | 'any';

type Phase = 'before' | 'nested' | 'scalar' | 'done' | 'refused';

/** A number or a literal runs up to whitespace or to what closes or separates it in its container. */
const SCALAR_END = /[\s,\]}]/;

/**
 * Follows one JSON value through text given in parts: `scan(text, from)` reads `text` from `from`
 * and answers the index just past the value's end, or -1 while the value has not ended (or was
 * refused). Parts may be pieces (each call its own text, `from` 0) or one growing text (each call
 * the whole text, `from` where the last call stopped).
 *
 * Budget: linear. A call reads each character from `from` to its answer once and carries four
 * numbers and flags to the next call, never text; so the whole value costs its own length, however
 * it is cut. `scanned` counts the characters read, for tests to hold that.
 *
 * @example
 * const s = new JsonValueScanner('object');
 * s.scan(' {"a": "}', 0); // -1 (the `}` is inside a string)
 * s.scan('"} and more', 0); // 2
 * s.start; // 1: where the value began, in the part that met it
 */
export class JsonValueScanner {
  /** Where the value's first character stands in the part whose scan met it; -1 before. */
  start = -1;
  /** Characters read by every `scan` so far. */
  scanned = 0;
  private phase: Phase = 'before';
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly kinds: JsonValueKinds = 'any') {}

  /** The value ended or was refused: every later scan answers -1 and reads nothing. */
  get done(): boolean {
    return this.phase === 'done' || this.phase === 'refused';
  }

  /** The text held something other than a value of the kinds asked for. */
  get refused(): boolean {
    return this.phase === 'refused';
  }

  scan(text: string, from = 0): number {
    if (this.done || from >= text.length) return -1;
    const end = this.read(text, from);
    this.scanned += (end < 0 ? text.length : end) - from;
    return end;
  }

  private read(text: string, i: number): number {
    if (this.phase === 'before') {
      while (i < text.length && /\s/.test(text[i] as string)) i++;
      if (i >= text.length) return -1;
      const c = text[i] as string;
      if (!this.takes(c)) {
        this.phase = 'refused';
        return -1;
      }
      this.start = i;
      this.phase = c === '{' || c === '[' || c === '"' ? 'nested' : 'scalar';
      // A string at the top is one more level to close (by its quote, not a bracket).
      if (this.phase === 'nested') i++;
      if (c === '"') this.inString = true;
      else if (this.phase === 'nested') this.depth = 1;
    }
    return this.phase === 'scalar' ? this.readScalar(text, i) : this.readNested(text, i);
  }

  private takes(c: string): boolean {
    if (c === '{') return true;
    if (c === '[') return this.kinds !== 'object';
    return this.kinds === 'any';
  }

  private readScalar(text: string, i: number): number {
    for (; i < text.length; i++) if (SCALAR_END.test(text[i] as string)) return this.ended(i);
    return -1;
  }

  private readNested(text: string, i: number): number {
    for (; i < text.length; i++) {
      const c = text[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') {
          this.inString = false;
          if (this.depth === 0) return this.ended(i + 1);
        }
      } else if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') this.depth++;
      else if (c === '}' || c === ']') {
        this.depth--;
        if (this.depth === 0) return this.ended(i + 1);
      }
    }
    return -1;
  }

  private ended(end: number): number {
    this.phase = 'done';
    return end;
  }
}
