import type {
  ResponseOutputMessage,
  ResponseOutputRefusal,
  ResponseOutputText,
} from 'openai/resources/responses/responses';
import type { TokenLogprob } from '../../engine/types';
import type { OpenReasoning } from './reasoning-events';

/** The content part a run is writing into: a message's text or refusal part, or a reasoning item. */
export type OpenPart =
  | {
      kind: 'text';
      item: ResponseOutputMessage;
      outputIndex: number;
      contentIndex: number;
      part: ResponseOutputText;
    }
  | {
      kind: 'refusal';
      item: ResponseOutputMessage;
      outputIndex: number;
      contentIndex: number;
      part: ResponseOutputRefusal;
    }
  | OpenReasoning;

/** Events and snapshots must not alias the live object, which keeps changing after they are sent. */
export function clone<T>(v: T): T {
  return structuredClone(v);
}

/**
 * An engine's logprob as the wire carries it (on `output_text` parts and `output_text.delta`).
 *
 * @example
 * toWireLogprob({ token: ' hi', logprob: 0, bytes: [32, 104, 105], top_logprobs: [] })
 */
export function toWireLogprob(l: TokenLogprob) {
  return {
    token: l.token,
    logprob: l.logprob,
    bytes: l.bytes,
    top_logprobs: l.top_logprobs.map((t) => ({ token: t.token, logprob: t.logprob, bytes: t.bytes })),
  };
}

/**
 * Puts a `file_citation` of `file` on the open text part at the text's current end, and returns
 * its `response.output_text.annotation.added` event (unnumbered).
 */
export function addCitation(
  open: Extract<OpenPart, { kind: 'text' }>,
  file: { file_id: string; filename: string },
): Record<string, unknown> {
  const annotation = { type: 'file_citation' as const, ...file, index: open.part.text.length };
  const annotation_index = open.part.annotations.push(annotation) - 1;
  return {
    type: 'response.output_text.annotation.added',
    item_id: open.item.id,
    output_index: open.outputIndex,
    content_index: open.contentIndex,
    annotation_index,
    annotation: clone(annotation),
  };
}
