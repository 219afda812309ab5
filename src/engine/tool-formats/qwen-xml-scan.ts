/**
 * Reads one Qwen3.5 call, `<tool_call>\n<function=name>\n<parameter=p>\nvalue\n</parameter>\n…
 * </function>\n</tool_call>`, the way its grammar writes it: a value runs from the newline after its
 * opening tag to the first `\n</parameter>\n`, so it may hold `<`, `</parameter>` or `</tool_call>`
 * anywhere else. (vLLM's `qwen3_coder` parser ends a value at the first `</parameter>` and a call at
 * the first `</tool_call>`; the two agree on every value that has neither.) A call still being
 * written streams its arguments the same way (`qwenXmlArgumentsStart`): each parameter a JSON member
 * as soon as its tag is read, a string parameter's raw value as JSON string text while it is written,
 * any other value whole once its closing tag came (its type depends on all of it).
 */
import { isRecord } from './json-text';
import type { ArgumentsStream, PartialCallHead } from './partial-call';
import { VALUE_END } from './qwen-xml-arguments';
import { schemaTypes } from './schema-types';

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

const PARAM_OPEN = '<parameter=';
const PARAM_CLOSE = '\n</parameter>';
const FUNCTION_CLOSE = '</function>';

/**
 * The call's name and its arguments' stream, once `<function=name>` has been read.
 *
 * @example
 * qwenXmlArgumentsStart('<tool_call>\n<function=python>\n<parameter=code>\npri', {}, typedValue)?.name; // 'python'
 */
export function qwenXmlArgumentsStart(
  region: string,
  schemas: Readonly<Record<string, Record<string, unknown>>> | undefined,
  typed: (raw: string, schema: unknown) => unknown,
): PartialCallHead | null {
  const m = /^<tool_call>\s*<function=([^>\n]+)>/.exec(region);
  if (!m) return null;
  const name = (m[1] as string).trim();
  const props = schemas?.[name]?.properties;
  return { name, arguments: new XmlArguments(m[0].length, isRecord(props) ? props : {}, typed) };
}

/** Whether a value of `schema` is always its raw text (a string and nothing else). */
function rawString(schema: unknown): boolean {
  const types = schemaTypes(schema);
  return types.size === 1 && types.has('string');
}

/** The length of the longest end of `text` (from `from`) that `marker` starts with. */
function heldTail(text: string, from: number, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length - from); n > 0; n--)
    if (marker.startsWith(text.slice(text.length - n))) return n;
  return 0;
}

/**
 * Reads the parameters as the scanner does (qwen-xml-scan.ts): a value runs from the newline after
 * its tag to `\n</parameter>` followed by a newline or by `</function>`. Linear: the region is
 * searched from where the last look stopped. Text out of that shape ends the stream (the whole call,
 * parsed, decides).
 */
class XmlArguments implements ArgumentsStream {
  private state: 'between' | 'raw' | 'typed' | 'ended' = 'between';
  private params = 0;
  private key = '';
  private valueStart = 0;
  /** Raw values: how far the value has been sent. */
  private sentTo = 0;
  /** Where to look for the value's closing tag next. */
  private searchFrom = 0;

  constructor(
    private pos: number,
    private readonly props: Record<string, unknown>,
    private readonly typed: (raw: string, schema: unknown) => unknown,
  ) {}

  next(region: string): string {
    let out = '';
    for (;;) {
      if (this.state === 'ended') return out;
      if (this.state === 'between') {
        const step = this.between(region);
        out += step.text;
        if (!step.more) return out;
        continue;
      }
      const close = region.indexOf(PARAM_CLOSE, this.searchFrom);
      if (close < 0) {
        if (this.state === 'raw')
          out += this.sendRaw(region, region.length - heldTail(region, this.sentTo, PARAM_CLOSE));
        else this.searchFrom = Math.max(this.searchFrom, region.length - PARAM_CLOSE.length + 1);
        return out;
      }
      const after = close + PARAM_CLOSE.length;
      const rest = region.slice(after, after + 64).trimStart();
      let next = -1;
      if (region[after] === '\n') next = after + 1;
      else if (rest.startsWith(FUNCTION_CLOSE)) next = after;
      else if (after >= region.length || FUNCTION_CLOSE.startsWith(rest)) {
        // Could still be the value's end: what comes before it is sure.
        if (this.state === 'raw') out += this.sendRaw(region, close);
        return out;
      }
      if (next < 0) {
        // `\n</parameter>` inside the value: it goes on.
        this.searchFrom = close + 1;
        continue;
      }
      if (this.state === 'raw') out += `${this.sendRaw(region, close)}"`;
      else out += JSON.stringify(this.typed(region.slice(this.valueStart, close), this.props[this.key]));
      this.pos = next;
      this.state = 'between';
    }
  }

  /** Between parameters: the next one's tag, or the function's end. */
  private between(region: string): { text: string; more: boolean } {
    let i = this.pos;
    while (i < region.length && /\s/.test(region[i] as string)) i++;
    this.pos = i;
    if (region.startsWith(PARAM_OPEN, i)) {
      const gt = region.indexOf('>', i);
      if (gt < 0 || gt + 1 >= region.length) {
        if (gt < 0 && region.includes('\n', i)) this.state = 'ended';
        return { text: '', more: false };
      }
      this.key = region.slice(i + PARAM_OPEN.length, gt).trim();
      this.valueStart = region[gt + 1] === '\n' ? gt + 2 : gt + 1;
      this.sentTo = this.valueStart;
      this.searchFrom = this.valueStart;
      this.state = rawString(this.props[this.key]) ? 'raw' : 'typed';
      const member = `${this.params++ === 0 ? '{' : ','}${JSON.stringify(this.key)}:`;
      return { text: this.state === 'raw' ? `${member}"` : member, more: true };
    }
    if (region.startsWith(FUNCTION_CLOSE, i)) {
      this.state = 'ended';
      return { text: this.params === 0 ? '{}' : '}', more: false };
    }
    const rest = region.slice(i, i + FUNCTION_CLOSE.length);
    if (!PARAM_OPEN.startsWith(rest) && !FUNCTION_CLOSE.startsWith(rest)) this.state = 'ended';
    return { text: '', more: false };
  }

  /** The raw value up to `end`, as JSON string text, from where it was last sent. */
  private sendRaw(region: string, end: number): string {
    if (end <= this.sentTo) return '';
    const piece = region.slice(this.sentTo, end);
    this.sentTo = end;
    // Once past, no closing tag is looked for again in what was sent.
    this.searchFrom = Math.max(this.searchFrom, end - PARAM_CLOSE.length + 1, this.valueStart);
    return JSON.stringify(piece).slice(1, -1);
  }
}
