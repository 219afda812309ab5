/**
 * Reads one Qwen3.5 call, `<tool_call>\n<function=name>\n<parameter=p>\nvalue\n</parameter>\n…
 * </function>\n</tool_call>`, the way its grammar writes it: a value runs from the newline after its
 * opening tag to the first `\n</parameter>\n`, so it may hold `<`, `</parameter>` or `</tool_call>`
 * anywhere else. (vLLM's `qwen3_coder` parser ends a value at the first `</parameter>` and a call at
 * the first `</tool_call>`; the two agree on every value that has neither.)
 */
import { VALUE_END } from './qwen-xml-arguments';

export interface ScannedCall {
  /** Index just past the call's `</tool_call>`. */
  end: number;
  name: string;
  /** Each parameter's name and raw value, less the newline on each side. */
  params: Array<[string, string]>;
}

/**
 * The call at the start of `text` (which starts with `<tool_call>`), 'incomplete' while more text
 * could still make it one, or 'malformed' when it is not in this shape.
 *
 * @example
 * scanQwenCall('<tool_call>\n<function=f>\n<parameter=a>\nx < y\n</parameter>\n</function>\n</tool_call>');
 * // { end: 74, name: 'f', params: [['a', 'x < y']] }
 */
export function scanQwenCall(text: string): ScannedCall | 'incomplete' | 'malformed' {
  let pos = skipSpace(text, '<tool_call>'.length);
  if (!text.startsWith('<function=', pos)) return awaiting(text, pos, ['<function=']);
  const header = text.indexOf('>', pos);
  if (header < 0) return text.includes('\n', pos) ? 'malformed' : 'incomplete';
  const name = text.slice(pos + '<function='.length, header).trim();
  if (name.includes('\n')) return 'malformed';
  const params: Array<[string, string]> = [];
  pos = header + 1;
  for (;;) {
    pos = skipSpace(text, pos);
    if (text.startsWith('<parameter=', pos)) {
      const gt = text.indexOf('>', pos);
      if (gt < 0) return 'incomplete';
      const key = text.slice(pos + '<parameter='.length, gt).trim();
      if (gt + 1 >= text.length) return 'incomplete';
      const start = text[gt + 1] === '\n' ? gt + 2 : gt + 1;
      const value = valueEnd(text, start);
      if (typeof value === 'string') return value;
      params.push([key, text.slice(start, value.at)]);
      pos = value.next;
      continue;
    }
    if (text.startsWith('</function>', pos)) {
      pos = skipSpace(text, pos + '</function>'.length);
      if (text.startsWith('</tool_call>', pos)) return { end: pos + '</tool_call>'.length, name, params };
      return awaiting(text, pos, ['</tool_call>']);
    }
    return awaiting(text, pos, ['<parameter=', '</function>']);
  }
}

/**
 * Where the value starting at `start` ends: at the first `\n</parameter>\n`, or, for a last value
 * whose closing tag has no newline after it, at `\n</parameter>` right before `</function>`.
 */
function valueEnd(text: string, start: number): { at: number; next: number } | 'incomplete' {
  const at = text.indexOf(VALUE_END, start);
  if (at >= 0) return { at, next: at + VALUE_END.length };
  const last = /\n<\/parameter>(?=\s*<\/function>)/g;
  last.lastIndex = start;
  const m = last.exec(text);
  return m ? { at: m.index, next: m.index + m[0].length } : 'incomplete';
}

function skipSpace(text: string, pos: number): number {
  let i = pos;
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  return i;
}

/** 'incomplete' when what is left is the start of one of `expected`, else 'malformed'. */
function awaiting(text: string, pos: number, expected: string[]): 'incomplete' | 'malformed' {
  const rest = text.slice(pos);
  return expected.some((e) => e.startsWith(rest)) ? 'incomplete' : 'malformed';
}
