/**
 * The GBNF of a Qwen3.5 raw parameter value, as web-llm's structural tag has it (`any_text` up to
 * `\n</parameter>\n`, see tool-formats/qwen-xml-arguments.ts): any text, newlines, `<`, `>` and `&`
 * included, nothing escaped, that does not contain the value's end. The scanner that reads the call
 * back (tool-formats/qwen-xml-scan.ts) ends the value at the first `\n</parameter>\n`, so the
 * grammar must refuse exactly the values that would end early.
 */
import { MAX_FREE_PARAMETERS, VALUE_END } from '../../tool-formats/qwen-xml-arguments';
import { type GbnfBuilder, gbnfClass, gbnfLiteral } from './gbnf';

const NEWLINE = 0x0a;

/**
 * The rule for a raw value: a small automaton over characters, one rule per state, state `k` having
 * read the first `k` characters of `\n</parameter>\n` last (the end's only repeated character is its
 * newline, so a mismatch falls back to state 1 on a newline and to state 0 on anything else). A
 * value may not reach the whole end, nor stop one character short of it (`…\n</parameter>` followed
 * by the end would hold the end one character early). Each state is right-recursive only in its
 * last position, which llama.cpp advances without growing its stacks; the automaton is
 * deterministic, so it never holds more than one stack per position. Added once per grammar.
 *
 * @example
 * rawValueRule(g); // 'xml-raw-0'; matches 'if a < b:\n  c && d' but not 'x\n</parameter>\ny'
 */
export function rawValueRule(g: GbnfBuilder): string {
  const end = [...VALUE_END].map((c) => c.codePointAt(0) as number);
  const last = end.length - 1;
  const state = (k: number) => `xml-raw-${k}`;
  if (g.has(state(0))) return state(0);
  for (let k = 0; k <= last; k++) {
    const want = end[k] as number;
    const alts: string[] = [];
    if (k === last) {
      // Having read `\n</parameter>`, a newline would complete the end: anything else starts over.
      alts.push(`${gbnfClass([[NEWLINE, NEWLINE]], true)} ${state(0)}`);
    } else if (want === NEWLINE) {
      alts.push(
        `${gbnfLiteral('\n')} ${state(1)}`,
        `${gbnfClass([[NEWLINE, NEWLINE]], true)} ${state(0)}`,
        '""',
      );
    } else {
      const others = gbnfClass(
        [
          [NEWLINE, NEWLINE],
          [want, want],
        ].sort((a, b) => (a[0] as number) - (b[0] as number)) as Array<[number, number]>,
        true,
      );
      alts.push(
        `${gbnfLiteral(String.fromCodePoint(want))} ${state(k + 1)}`,
        `${gbnfLiteral('\n')} ${state(1)}`,
        `${others} ${state(0)}`,
        '""',
      );
    }
    g.shared(state(k), alts.join(' | '));
  }
  return state(0);
}

/** Characters of a free parameter's name: `[A-Za-z0-9_.-]`. */
const NAME_CHARS: Array<[number, number]> = [
  [0x2d, 0x2e],
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];

/**
 * The parameters of a tool whose schema lists none, as web-llm's `freeParameters` has them: up to
 * {@link MAX_FREE_PARAMETERS}, any names, each `<parameter=name>\nraw value\n</parameter>\n`.
 *
 * @example
 * freeParametersRule(g); // 'xml-free-param{0,8}'
 */
export function freeParametersRule(g: GbnfBuilder): string {
  const one = g.shared(
    'xml-free-param',
    `${gbnfLiteral('<parameter=')} ${gbnfClass(NAME_CHARS)}+ ${gbnfLiteral('>\n')} ${rawValueRule(g)} ${gbnfLiteral(VALUE_END)}`,
  );
  return `${one}{0,${MAX_FREE_PARAMETERS}}`;
}
