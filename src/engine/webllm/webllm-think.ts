/**
 * Splits a streamed reply of a thinking model (`<think>…</think>answer`) into reasoning and answer,
 * one delta at a time, holding back only what could still be part of a tag.
 */

import type { ReasoningMarkers } from '../tool-formats/model-family';

const THINK: ReasoningMarkers = { open: '<think>', close: '</think>', prefilled: false };

/** What one delta contributed to each side. Either may be empty. */
export interface ThinkSplit {
  reasoning: string;
  answer: string;
  /** True when the delta was (at least partly) inside the think block. */
  thinking: boolean;
}

/**
 * Streaming `<think>` splitter. A reply that does not open with `<think>` (after whitespace) is all
 * answer. Whitespace around the block is dropped: Qwen3 writes `<think>\n…\n</think>\n\n`.
 *
 * @example
 * const s = new ThinkSplitter();
 * s.push('<think>\nhm'); // {reasoning:'hm', answer:'', thinking:true}
 * s.push('</think>\n\nHi'); // {reasoning:'', answer:'Hi', thinking:false}
 */
export class ThinkSplitter {
  private state: 'start' | 'think' | 'lead' | 'answer' = 'start';
  private held = '';
  private reasoningStarted = false;

  /**
   * With `prefilled` markers the reply starts inside the block (the template wrote the opening tag);
   * an opening tag the model writes anyway is dropped.
   */
  constructor(private readonly markers: ReasoningMarkers = THINK) {}

  push(delta: string): ThinkSplit {
    const out: ThinkSplit = { reasoning: '', answer: '', thinking: this.state === 'think' };
    let text = this.held + delta;
    this.held = '';
    const { open, close } = this.markers;
    if (this.state === 'start') {
      const trimmed = text.trimStart();
      if (trimmed.startsWith(open)) {
        this.state = 'think';
        out.thinking = true;
        text = trimmed.slice(open.length);
      } else if (open.startsWith(trimmed)) {
        this.held = text;
        return out;
      } else {
        this.state = this.markers.prefilled ? 'think' : 'answer';
      }
    }
    if (this.state === 'think') {
      out.thinking = true;
      const end = text.indexOf(close);
      if (end < 0) {
        const keep = holdBack(text, close);
        out.reasoning = this.reasoningPiece(text.slice(0, text.length - keep));
        this.held = text.slice(text.length - keep);
        return out;
      }
      out.reasoning = this.reasoningPiece(text.slice(0, end).trimEnd());
      text = text.slice(end + close.length);
      this.state = 'lead';
    }
    if (this.state === 'lead') {
      text = text.trimStart();
      if (text === '') return out;
      this.state = 'answer';
    }
    out.answer = text;
    return out;
  }

  /** Releases whatever was held back once the stream ends (an unclosed block stays reasoning). */
  flush(): ThinkSplit {
    const held = this.held;
    this.held = '';
    if (this.state === 'think' || (this.state === 'start' && this.markers.prefilled))
      return { reasoning: this.reasoningPiece(held.trimEnd()), answer: '', thinking: true };
    return { reasoning: '', answer: held, thinking: false };
  }

  private reasoningPiece(text: string): string {
    if (this.reasoningStarted) return text;
    const trimmed = text.trimStart();
    if (trimmed !== '') this.reasoningStarted = true;
    return trimmed;
  }
}

/** How many trailing characters could still start the closing tag or are whitespace that may precede it. */
function holdBack(text: string, close: string): number {
  let partial = 0;
  for (let n = Math.min(close.length - 1, text.length); n > 0; n--) {
    if (close.startsWith(text.slice(text.length - n))) {
      partial = n;
      break;
    }
  }
  const body = text.slice(0, text.length - partial);
  const spaces = body.length - body.trimEnd().length;
  return partial + spaces;
}
