import type { ResponseReasoningItem } from 'openai/resources/responses/responses';
import type { ReasoningOptions } from '../request/run-options';
import { sealReasoning } from '../request/sealed-reasoning';

/** Emits one unnumbered event; the run numbers it. */
type Send = (event: Record<string, unknown>) => void;

/**
 * A reasoning item being streamed: one `reasoning_text` content part, then (when asked for) one
 * summary part. Engines know no summaries, so the summary is the reasoning text itself, streamed
 * with the same deltas: deterministic for `scripted`, and faithful for any real model.
 *
 * @example
 * const open = new OpenReasoning(item, 0, send);
 * open.delta('Thinking');
 * open.close({ summary: true, encryptedContent: false });
 */
export class OpenReasoning {
  readonly kind = 'reasoning';
  readonly contentIndex = 0;
  private text = '';
  private readonly deltas: string[] = [];

  constructor(
    readonly item: ResponseReasoningItem,
    readonly outputIndex: number,
    private readonly send: Send,
  ) {
    this.send({
      type: 'response.content_part.added',
      ...this.base(),
      content_index: 0,
      part: { type: 'reasoning_text', text: '' },
    });
  }

  delta(delta: string): void {
    this.text += delta;
    this.deltas.push(delta);
    this.send({ type: 'response.reasoning_text.delta', ...this.base(), content_index: 0, delta });
  }

  /**
   * Ends the item: `reasoning_text.done`, `content_part.done`, the summary part's events, then
   * `output_item.done`. With `emit` false (a cancelled run) only the item's final state is set.
   */
  close(opts: ReasoningOptions, emit = true): void {
    const item = this.item;
    item.content = [{ type: 'reasoning_text', text: this.text }];
    item.status = undefined;
    if (emit) {
      this.send({ type: 'response.reasoning_text.done', ...this.base(), content_index: 0, text: this.text });
      const part = { type: 'reasoning_text', text: this.text };
      this.send({ type: 'response.content_part.done', ...this.base(), content_index: 0, part });
    }
    if (opts.summary && this.text !== '') this.summarize(emit);
    if (opts.encryptedContent) item.encrypted_content = sealReasoning(item);
    if (emit)
      this.send({ type: 'response.output_item.done', output_index: this.outputIndex, item: clone(item) });
  }

  private summarize(emit: boolean): void {
    const summary = { type: 'summary_text' as const, text: this.text };
    this.item.summary = [summary];
    if (!emit) return;
    const at = { ...this.base(), summary_index: 0 };
    this.send({ type: 'response.reasoning_summary_part.added', ...at, part: { ...summary, text: '' } });
    for (const delta of this.deltas)
      this.send({ type: 'response.reasoning_summary_text.delta', ...at, delta });
    this.send({ type: 'response.reasoning_summary_text.done', ...at, text: this.text });
    this.send({ type: 'response.reasoning_summary_part.done', ...at, part: { ...summary } });
  }

  private base() {
    return { item_id: this.item.id, output_index: this.outputIndex };
  }
}

function clone<T>(v: T): T {
  return structuredClone(v);
}
