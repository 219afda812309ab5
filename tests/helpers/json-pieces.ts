/**
 * Arbitrary JSON text and arbitrary cuts of it, for the properties of code that reads JSON as it
 * streams in pieces (the value scanner, the field stream, a tool call's arguments).
 */
import fc from 'fast-check';

/**
 * `text` cut at `cuts` (positions, any order, repeats allowed).
 *
 * @example
 * split('abcd', [3, 1]); // ['a', 'bc', 'd']
 */
export function split(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const c of at) {
    pieces.push(text.slice(from, c));
    from = c;
  }
  pieces.push(text.slice(from));
  return pieces;
}

/** Strings made of what a bracket-and-string scanner could trip on. */
const trickyString = fc.string({
  unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a', '1', ' ', '\n', '\u2028', 'é', '😀'),
});

const { trickyValue } = fc.letrec((tie) => ({
  trickyValue: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    trickyString,
    fc.array(tie('trickyValue'), { maxLength: 4 }),
    fc.dictionary(trickyString, tie('trickyValue'), { maxKeys: 4 }),
  ),
}));

/** Any JSON value: fast-check's (ASCII and any code point) and one whose strings hold brackets, quotes and escapes. */
export const anyJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'binary' }),
  trickyValue,
);

/** JSON whitespace runs, as gaps between tokens. */
export const jsonGaps = fc.array(fc.stringMatching(/^[ \t\r\n]{0,3}$/), { minLength: 1, maxLength: 8 });

/**
 * `value` as JSON text with the `gaps` (cycled) between its tokens, as a model may space it.
 *
 * @example
 * spacedJson({ a: [1] }, [' ']); // '{ "a" : [ 1 ] }'
 */
export function spacedJson(value: unknown, gaps: string[]): string {
  let n = 0;
  const gap = () => gaps[n++ % gaps.length] as string;
  const write = (v: unknown): string => {
    if (Array.isArray(v)) return `[${gap()}${v.map(write).join(`${gap()},${gap()}`)}${gap()}]`;
    if (typeof v === 'object' && v !== null) {
      const fields = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}${gap()}:${gap()}${write(x)}`);
      return `{${gap()}${fields.join(`${gap()},${gap()}`)}${gap()}}`;
    }
    return JSON.stringify(v);
  };
  return write(value);
}
