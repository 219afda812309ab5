import type {
  ResponseOutputMessage,
  ResponseOutputRefusal,
  ResponseOutputText,
} from 'openai/resources/responses/responses';
import type { TokenLogprob } from '../../../engine/types';
import type { ContainerFileNames, MentionScanner } from '../../hosted';
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

/** What a run cites: a file (a `file_citation` where the text ends now), or a whole annotation. */
export type Citing = { file_id: string; filename: string } | ResponseOutputText.ContainerFileCitation;

/**
 * Puts an annotation on the open text part (a `file_citation` of a file at the text's current end,
 * or a `container_file_citation` as it is), and returns its `response.output_text.annotation.added`
 * event (unnumbered).
 */
export function addCitation(
  open: Extract<OpenPart, { kind: 'text' }>,
  cited: Citing,
): Record<string, unknown> {
  const annotation =
    'type' in cited ? cited : { type: 'file_citation' as const, ...cited, index: open.part.text.length };
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

/**
 * Cites the container files a run's text parts name (hosted/container-citations.ts): each text
 * part is read as it grows, a mention cited once it is whole (at the next break, or the part's end).
 *
 * @example
 * run.mentions.watch(names); // then each text delta: for (const e of run.mentions.events(open, false)) send(e);
 */
export class MentionCites {
  private names: ContainerFileNames | null = null;
  private part: ResponseOutputText | null = null;
  private scanner: MentionScanner | null = null;

  /** From now on, text names these files (code wrote them); a part already read is read again. */
  watch(names: ContainerFileNames): void {
    this.names = names.size > 0 ? names : null;
    this.part = null;
  }

  /** The `annotation.added` events of the mentions `open`'s text now completes (its last word too once it `ended`). */
  events(open: Extract<OpenPart, { kind: 'text' }>, ended: boolean): Record<string, unknown>[] {
    if (!this.names) return [];
    if (this.part !== open.part || !this.scanner) {
      this.part = open.part;
      this.scanner = this.names.scanner();
    }
    return this.scanner.scan(open.part.text, ended).map((found) => addCitation(open, found));
  }
}
