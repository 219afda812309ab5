import { pace } from '../../common/pace';

/**
 * The scripted model's token count without the tokens: `scriptedTokens(text).length` made one string
 * per word, and a 16 MiB input (8 million words) held the engine worker about a second in one step
 * (mostly the garbage collector). Counting the runs of non-whitespace gives the same number.
 */

/** Characters counted between two chances to yield (about a millisecond). */
const SLICE_CHARS = 1 << 20;

/**
 * Whether the UTF-16 code unit `c` is whitespace as a regular expression's `\s` means it (ECMAScript
 * WhiteSpace and LineTerminator): what `scriptedTokens` splits on.
 */
export function isRegexSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * How many tokens `scriptedTokens(text)` would give (runs of non-whitespace), counted in slices with
 * {@link pace} between them.
 *
 * @example
 * await countScriptedTokens('You said: hi') // → 3
 */
export async function countScriptedTokens(text: string): Promise<number> {
  let n = 0;
  let inWord = false;
  for (let start = 0; start < text.length; start += SLICE_CHARS) {
    if (start > 0) await pace();
    const end = Math.min(text.length, start + SLICE_CHARS);
    for (let i = start; i < end; i++) {
      const word = !isRegexSpace(text.charCodeAt(i));
      if (word && !inWord) n++;
      inWord = word;
    }
  }
  return n;
}
