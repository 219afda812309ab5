/**
 * Splits a streamed answer into prose and tool calls, in any order and number, for any format:
 * prose streams as it comes, minus the tail that could still be the start of a call.
 */
import type { FunctionToolSpec } from '../types';
import type { PartialCallHead } from './partial-call';
import type { ParsedToolCall, ToolFormat } from './types';

/**
 * `call_delta`: the next piece of the arguments of the call being written (the first of its region),
 * as the model writes them; the `calls` piece that ends the region holds it whole.
 */
export type CallStreamPiece =
  | { type: 'text'; text: string }
  | { type: 'calls'; calls: ParsedToolCall[] }
  | { type: 'call_delta'; name: string; delta: string };

/** How far into a region its call's name and arguments must have begun for them to stream. */
const HEAD_LIMIT = 512;

/**
 * @example
 * const s = new CallStream(hermesFormat, [{ name: 'f', parameters: null, strict: null }]);
 * s.push('Let me check. <tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>');
 * // [{type:'text', text:'Let me check.'}, {type:'calls', calls:[{name:'f', arguments:'{}'}]}]
 */
export class CallStream {
  private buffer = '';
  private inCall = false;
  /** Whether prose was emitted since the last call (whitespace after a call is dropped). */
  private afterCall = false;
  /** For `leading` formats: prose came first, so nothing after it is a call. */
  private prose = false;
  /** The whitespace dropped before the open region: given back if the region is no call. */
  private gap = '';
  /** The open region's call whose arguments stream; null before its head is read. */
  private partial: PartialCallHead | null = null;
  /** The open region's arguments cannot stream (an unknown tool, no head where one should be). */
  private noPartial = false;

  private readonly known: readonly string[];
  private readonly schemas: Readonly<Record<string, Record<string, unknown>>>;
  /** Where a call may open: the grammar's openings when given, else the format's markers. */
  private readonly triggers: readonly string[];

  /**
   * `tools`: the callable tools, or only their names (then formats cannot type bare values).
   * `openings`: where the grammar lets a call open (`<tool_call>\n`, not a bare `<tool_call>`), so
   * that only text the grammar held to a tool's schema is read as a call.
   */
  constructor(
    private readonly format: ToolFormat,
    tools: readonly (FunctionToolSpec | string)[],
    openings?: readonly string[],
  ) {
    this.triggers = openings ?? format.triggers;
    this.known = tools.map((t) => (typeof t === 'string' ? t : t.name));
    this.schemas = Object.fromEntries(
      tools.flatMap((t) => (typeof t !== 'string' && t.parameters ? [[t.name, t.parameters]] : [])),
    );
  }

  push(delta: string): CallStreamPiece[] {
    this.buffer += delta;
    return this.drain(false);
  }

  /**
   * The rest, once the stream ended: an unfinished call is given back as the text it was, unless the
   * output was `truncated` (a token limit cut it): half a call is then neither a call nor prose.
   */
  finish(truncated = false): CallStreamPiece[] {
    const out = this.drain(true);
    if (this.inCall && truncated) this.buffer = '';
    const rest = this.inCall ? (this.buffer === '' ? '' : this.gap + this.buffer) : this.buffer.trimEnd();
    if (rest.trim() !== '') out.push({ type: 'text', text: rest });
    this.buffer = '';
    return out;
  }

  /**
   * For `leading` formats: whether the output may still open with a call. Decides `prose` once the
   * reply's first characters rule a trigger out.
   */
  private leadingCall(atEnd: boolean): boolean {
    if (this.prose) return false;
    const head = this.buffer.trimStart();
    if (head === '') return false;
    if (this.format.triggers.some((t) => head.startsWith(t))) return true;
    if (!atEnd && this.format.triggers.some((t) => t.startsWith(head))) return false;
    this.prose = true;
    return false;
  }

  /**
   * What a region that parsed into no call gives back: its text, with the whitespace before it. A
   * marker mentioned in prose ("Use `<tool_call>` like this.") opens a region that runs to the next
   * call's end, so the text stops before the next marker inside it, which is read again (the grammar
   * held the real call after the mention). Where calls are the whole reply (Llama), a region that is
   * no call (a plain JSON answer) makes the rest of the reply prose, as the grammar has it.
   */
  private notACall(region: string): CallStreamPiece[] {
    const gap = this.gap;
    this.gap = '';
    if (this.format.leading) {
      this.prose = true;
      return [{ type: 'text', text: gap + region }];
    }
    const again = firstTrigger(region.slice(1), this.triggers);
    if (again < 0) return [{ type: 'text', text: gap + region }];
    // Whitespace before the next marker goes back too, dropped only if that marker opens a call.
    const text = region.slice(0, again + 1).trimEnd();
    this.buffer = region.slice(text.length) + this.buffer;
    return [{ type: 'text', text: gap + text }];
  }

  private drain(atEnd: boolean): CallStreamPiece[] {
    const out: CallStreamPiece[] = [];
    for (;;) {
      if (this.inCall) {
        const end = this.format.regionEnd(this.buffer);
        this.streamArguments(end < 0 ? this.buffer : this.buffer.slice(0, end), out);
        if (end < 0) {
          if (atEnd) {
            // Formats whose call ends at the end of the output (no closing marker).
            const calls = this.format.parseRegion(this.buffer, this.known, this.schemas);
            if (calls) {
              out.push({ type: 'calls', calls });
              this.buffer = '';
              this.gap = '';
            }
          }
          return out;
        }
        const region = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end);
        this.inCall = false;
        const calls = this.format.parseRegion(region, this.known, this.schemas);
        if (calls) {
          out.push({ type: 'calls', calls });
          this.gap = '';
        } else out.push(...this.notACall(region));
        this.afterCall = calls !== null;
        continue;
      }
      if (this.afterCall) this.buffer = this.buffer.replace(this.format.between ?? /^\s+/, '').trimStart();
      if (this.format.leading && !this.leadingCall(atEnd)) {
        if (this.prose) {
          if (this.buffer !== '') out.push({ type: 'text', text: this.buffer });
          this.buffer = '';
          this.afterCall = false;
        }
        return out;
      }
      const at = firstTrigger(this.buffer, this.triggers);
      if (at >= 0) {
        const before = this.buffer.slice(0, at);
        const prose = before.trimEnd();
        if (prose !== '') out.push({ type: 'text', text: prose });
        this.gap = before.slice(prose.length);
        this.buffer = this.buffer.slice(at);
        this.inCall = true;
        this.partial = null;
        this.noPartial = false;
        continue;
      }
      const keep = atEnd ? 0 : heldTail(this.buffer, this.triggers);
      const prose = this.buffer.slice(0, this.buffer.length - keep);
      if (prose !== '') {
        out.push({ type: 'text', text: prose });
        this.afterCall = false;
      }
      this.buffer = this.buffer.slice(prose.length);
      return out;
    }
  }

  /** The arguments the open region's call gained since the last look, as a `call_delta`. */
  private streamArguments(region: string, out: CallStreamPiece[]): void {
    if (this.noPartial || !this.format.argumentsStart) return;
    if (!this.partial) {
      const head = this.format.argumentsStart(region, this.schemas);
      if (!head) {
        this.noPartial = region.length > HEAD_LIMIT;
        return;
      }
      if (!this.known.includes(head.name)) {
        this.noPartial = true;
        return;
      }
      this.partial = head;
    }
    const delta = this.partial.arguments.next(region);
    if (delta !== '') out.push({ type: 'call_delta', name: this.partial.name, delta });
  }
}

function firstTrigger(text: string, triggers: readonly string[]): number {
  let first = -1;
  for (const t of triggers) {
    const at = text.indexOf(t);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

/**
 * How much of the tail to hold back: a partial trigger, plus the whitespace before it or at the very
 * end (prose never ends in the whitespace that separates it from a call).
 */
function heldTail(text: string, triggers: readonly string[]): number {
  let partial = 0;
  for (const t of triggers) {
    for (let n = Math.min(t.length - 1, text.length); n > partial; n--) {
      if (t.startsWith(text.slice(text.length - n))) {
        partial = n;
        break;
      }
    }
  }
  const body = text.slice(0, text.length - partial);
  return partial + (body.length - body.trimEnd().length);
}
