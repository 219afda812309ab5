import type { ResponseReasoningItem } from 'openai/resources/responses/responses';
import { seal, unseal } from './sealed';

/**
 * Reasoning items carried without storage: the run seals a reasoning item's text into its
 * `encrypted_content`, and preparation reads it back when the item returns as input.
 */

const SEAL_PREFIX = 'intab.rs.v1.';

/**
 * The opaque `encrypted_content` of a reasoning item: its text and summary, which
 * {@link unsealReasoning} restores when the item comes back as input (with `store: false`, say).
 *
 * @example
 * item.encrypted_content = sealReasoning(item);
 */
export function sealReasoning(item: ResponseReasoningItem): string {
  return seal(SEAL_PREFIX, { content: item.content ?? [], summary: item.summary });
}

/**
 * Reads an `encrypted_content` that {@link sealReasoning} made; undefined when it is foreign or
 * altered.
 *
 * @example
 * unsealReasoning(item.encrypted_content) // → { content: [{ type: 'reasoning_text', text }], summary: [] }
 */
export function unsealReasoning(
  sealed: string,
): Pick<ResponseReasoningItem, 'content' | 'summary'> | undefined {
  const value = unseal(SEAL_PREFIX, sealed) as { content?: unknown; summary?: unknown } | undefined;
  // Opaque, not signed: a forged string must still hold text parts, or it is refused like an altered one.
  if (!value || !textParts(value.content, 'reasoning_text') || !textParts(value.summary, 'summary_text'))
    return undefined;
  return value as Pick<ResponseReasoningItem, 'content' | 'summary'>;
}

function textParts(v: unknown, type: string): boolean {
  return (
    Array.isArray(v) &&
    v.every((p) => typeof p === 'object' && p !== null && p.type === type && typeof p.text === 'string')
  );
}
