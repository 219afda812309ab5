/**
 * A request's own secrets (a remote server's key and header values, an MCP server's token and
 * headers) kept out of what intab stores and answers, even when the server they went to echoes them
 * back in its output (issue 38 §3.8). Whole texts are redacted at once; a stream is redacted as it
 * comes, holding back only as many characters as the longest secret could still need.
 */

/** What a secret reads as once redacted. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are not redacted (they would blank common words). */
const MIN_SECRET_CHARS = 4;

/**
 * The strings worth redacting among `values`, longest first (so a secret that holds another is
 * replaced whole).
 *
 * @example
 * secretsOf(['sk-123456', undefined, 'ab']) // → ['sk-123456']
 */
export function secretsOf(values: readonly unknown[]): string[] {
  const out = values.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_CHARS);
  return [...new Set(out)].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every occurrence of each secret replaced by {@link REDACTED}.
 *
 * @example
 * redactText('key sk-123456 echoed', ['sk-123456']) // → 'key [redacted] echoed'
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * `value` (any JSON value) with the secrets redacted from every string in it, keys included.
 *
 * @example
 * redactJson({ a: ['sk-123456'] }, ['sk-123456']) // → { a: ['[redacted]'] }
 */
export function redactJson<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0 || value === undefined) return value;
  const json = JSON.stringify(value);
  if (json === undefined) return value;
  let out = json;
  // In JSON text a secret is written escaped: replace that form.
  for (const s of secrets) out = out.split(JSON.stringify(s).slice(1, -1)).join(REDACTED);
  return out === json ? value : (JSON.parse(out) as T);
}

/**
 * Redacts a text that arrives in pieces: `push` returns what can be passed on now (all of it but an
 * end that may be the start of a secret), `flush` the rest at the end. Text that cannot begin a
 * secret is never held, so a stream without secrets in it flows as it came.
 *
 * @example
 * const r = new StreamRedactor(['sk-123456']);
 * r.push('key sk-12') + r.push('3456!') + r.flush() // → 'key [redacted]!'
 */
export class StreamRedactor {
  private held = '';

  constructor(private readonly secrets: readonly string[]) {}

  push(piece: string): string {
    if (this.secrets.length === 0) return piece;
    const text = redactText(this.held + piece, this.secrets);
    let cut = text.length - this.openPrefix(text);
    // Never between the halves of a surrogate pair: a lone half would reach the client as U+FFFD.
    const last = text.charCodeAt(cut - 1);
    if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut--;
    this.held = text.slice(cut);
    return text.slice(0, cut);
  }

  flush(): string {
    const rest = redactText(this.held, this.secrets);
    this.held = '';
    return rest;
  }

  /** The length of the longest end of `text` that a secret starts with (and is not all of). */
  private openPrefix(text: string): number {
    let longest = 0;
    for (const s of this.secrets) {
      const from = Math.max(0, text.length - (s.length - 1));
      for (let i = text.indexOf(s[0] as string, from); i >= 0; i = text.indexOf(s[0] as string, i + 1)) {
        if (text.length - i <= longest) break;
        if (s.startsWith(text.slice(i))) {
          longest = text.length - i;
          break;
        }
      }
    }
    return longest;
  }
}
