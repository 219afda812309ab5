/**
 * JSON decoded as it streams in pieces cut anywhere: a string's text (escapes, `\uXXXX` and
 * surrogate pairs split across pieces), and one string field of an object, so that the code of a
 * `python` call reaches the client while the model is still writing it. Both are linear in their
 * input and hold at most one escape (six characters) and one high surrogate between pieces.
 */
import { JsonValueScanner } from '../../common/json-scan';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Decodes the body of one JSON string (what follows its opening quote), piece by piece. `push`
 * returns the text decoded so far that is sure (a high surrogate waits for what follows it);
 * `closed` once the closing quote came, `failed` on text JSON.parse would refuse.
 *
 * @example
 * const d = new JsonStringDecoder();
 * d.push('a\\u00'); // 'a'
 * d.push('e9"');    // 'é'  (d.closed: true)
 */
export class JsonStringDecoder {
  closed = false;
  failed = false;
  /** Where in the last piece the closing quote ended (the rest is not the string's). */
  consumed = 0;
  /** An escape begun in an earlier piece (`\`, `\u12`). */
  private escape = '';
  /** A high surrogate held until we see whether a low one follows. */
  private high = '';

  /**
   * Characters held from earlier pieces (an escape's start, a high surrogate): at most 6, so each
   * piece costs its own length, never the length decoded so far.
   */
  get carried(): number {
    return this.escape.length + this.high.length;
  }

  push(piece: string): string {
    if (this.closed || this.failed) {
      this.consumed = 0;
      return '';
    }
    const parts: string[] = [];
    let i = 0;
    let run = 0;
    const flushRun = (end: number) => {
      if (end > run) this.emit(parts, piece.slice(run, end));
    };
    while (i < piece.length) {
      if (this.escape !== '') {
        if (this.escape.length === 1) this.escape += piece[i++];
        const need = this.escape[1] === 'u' ? 6 : 2;
        const take = Math.min(need - this.escape.length, piece.length - i);
        this.escape += piece.slice(i, i + take);
        i += take;
        run = i;
        if (this.escape.length < need) break;
        const text = this.decodeEscape(this.escape);
        this.escape = '';
        if (text === null) return this.fail(parts);
        this.emit(parts, text);
        continue;
      }
      const c = piece.charCodeAt(i);
      if (c === 0x22) {
        flushRun(i);
        this.closed = true;
        this.consumed = i + 1;
        if (this.high !== '') parts.push(this.high);
        this.high = '';
        return parts.join('');
      }
      if (c === 0x5c) {
        flushRun(i);
        this.escape = '\\';
        i++;
        run = i;
        continue;
      }
      if (c < 0x20) return this.fail(parts);
      i++;
    }
    flushRun(i);
    this.consumed = piece.length;
    return parts.join('');
  }

  /** At the end of input: what is held back (a lone high surrogate), for text that ended early. */
  flush(): string {
    const held = this.high;
    this.high = '';
    return held;
  }

  private fail(parts: string[]): string {
    this.failed = true;
    this.consumed = 0;
    return parts.join('');
  }

  /** Appends `text`, holding a trailing high surrogate back for the piece that may complete it. */
  private emit(parts: string[], text: string): void {
    if (text === '') return;
    if (this.high !== '') {
      parts.push(this.high);
      this.high = '';
    }
    const last = text.charCodeAt(text.length - 1);
    if (isHighSurrogate(last)) {
      this.high = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text !== '') parts.push(text);
  }

  private decodeEscape(seq: string): string | null {
    if (seq[1] !== 'u') return SIMPLE_ESCAPES[seq[1] as string] ?? null;
    const hex = seq.slice(2);
    return /^[0-9a-fA-F]{4}$/.test(hex) ? String.fromCharCode(Number.parseInt(hex, 16)) : null;
  }
}

type FieldState = 'start' | 'key' | 'keyText' | 'colon' | 'value' | 'string' | 'skip' | 'after' | 'end';

/** The longest key read whole (keys are short); a longer one cannot be the field's, and ends the read. */
const KEY_LIMIT = 256;

/**
 * Streams the text of one top-level string field (`code`) out of a JSON object that arrives in
 * pieces; other values are skipped. Stops at the field's closing quote, at the object's end, or at
 * anything that is not a JSON object: what it gave out is then all it gives (the whole value, once
 * parsed, is the truth; a repeated key is its caller's to settle).
 *
 * @example
 * const f = new JsonFieldStream('code');
 * f.push('{"code": "pri'); // 'pri'
 * f.push('nt(1)"}');       // 'nt(1)'
 */
export class JsonFieldStream {
  private state: FieldState = 'start';
  private key = new JsonStringDecoder();
  private keyText = '';
  private value = new JsonStringDecoder();
  /** Another field's value, skipped to its end. */
  private skipped = new JsonValueScanner('any');

  constructor(private readonly field: string) {}

  /** Whether the field's string has been read to its closing quote. */
  get complete(): boolean {
    return this.value.closed;
  }

  push(piece: string): string {
    let out = '';
    let i = 0;
    while (i < piece.length && this.state !== 'end') {
      const c = piece[i] as string;
      const space = c === ' ' || c === '\n' || c === '\r' || c === '\t';
      switch (this.state) {
        case 'start':
          this.state = space ? 'start' : c === '{' ? 'key' : 'end';
          i++;
          break;
        case 'key':
          this.state = space ? 'key' : c === '"' ? 'keyText' : 'end';
          i++;
          break;
        case 'keyText':
          i = this.readKey(piece, i);
          break;
        case 'colon':
          this.state = space ? 'colon' : c === ':' ? 'value' : 'end';
          i++;
          break;
        case 'value':
          if (space) i++;
          else if (c === '"' && this.keyText === this.field) {
            this.state = 'string';
            i++;
          } else {
            this.state = 'skip';
            this.skipped = new JsonValueScanner('any');
          }
          break;
        case 'string':
          out += this.value.push(i === 0 ? piece : piece.slice(i));
          if (this.value.failed || this.value.closed) this.state = 'end';
          i = piece.length;
          break;
        case 'skip':
          i = this.skip(piece, i);
          break;
        case 'after':
          if (c === ',') {
            this.state = 'key';
            this.key = new JsonStringDecoder();
            this.keyText = '';
          } else if (!space) this.state = 'end';
          i++;
          break;
      }
    }
    return out;
  }

  /** Reads a key's text (its opening quote already seen); `colon` once it closed. */
  private readKey(piece: string, i: number): number {
    this.keyText += this.key.push(i === 0 ? piece : piece.slice(i));
    if (this.key.failed || this.keyText.length > KEY_LIMIT) {
      this.state = 'end';
      return piece.length;
    }
    if (!this.key.closed) return piece.length;
    this.state = 'colon';
    return i + this.key.consumed;
  }

  /**
   * Skips a value that is not the field; `after` once it ends (the object's `}` or `,` after it is
   * `after`'s to read).
   */
  private skip(piece: string, i: number): number {
    const end = this.skipped.scan(piece, i);
    if (end < 0) return piece.length;
    this.state = 'after';
    return end;
  }
}
