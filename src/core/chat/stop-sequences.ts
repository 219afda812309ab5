/**
 * Chat Completions' `stop`, applied by the core so every engine honours it the same way: text is
 * let through as it streams, except a tail that may be the start of a stop sequence, which waits
 * for the next delta. The stop sequence itself is never part of the text, as at OpenAI.
 *
 * @example
 * const scanner = new StopScanner(['END']);
 * scanner.push('one E');   // → { text: 'one ', stopped: false } ('E' may start 'END')
 * scanner.push('ND two');  // → { text: '', stopped: true }
 */
export class StopScanner {
  private held = '';
  private done = false;

  constructor(private readonly stops: readonly string[]) {}

  /** Takes a delta; returns the text that may go out now, and whether a stop sequence was reached. */
  push(delta: string): { text: string; stopped: boolean } {
    if (this.done) return { text: '', stopped: true };
    const text = this.held + delta;
    let cut = -1;
    for (const stop of this.stops) {
      const at = text.indexOf(stop);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      this.done = true;
      this.held = '';
      return { text: text.slice(0, cut), stopped: true };
    }
    const keep = this.partialTail(text);
    this.held = text.slice(text.length - keep);
    return { text: text.slice(0, text.length - keep), stopped: false };
  }

  /** The text still held back when generation ends without reaching a stop sequence. */
  flush(): string {
    const rest = this.done ? '' : this.held;
    this.held = '';
    return rest;
  }

  /** Length of the longest end of `text` that is a proper start of some stop sequence. */
  private partialTail(text: string): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let n = Math.min(stop.length - 1, text.length); n > longest; n--) {
        if (text.endsWith(stop.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }
}
