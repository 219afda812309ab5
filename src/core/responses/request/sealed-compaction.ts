import type { ResponseItem } from 'openai/resources/responses/responses';
import { invalidRequest } from '../../../common/api-error';
import { inputItemSchema } from './create-schema';
import { seal, unseal } from './sealed';

/**
 * Compaction items (`POST /v1/responses/compact`) carry the history they fold in their
 * `encrypted_content`; preparation expands them again when they come back as input.
 */

const PREFIX = 'intab.v1.';

/**
 * The opaque `encrypted_content` of a `compaction` item: the whole history it folds.
 *
 * @example
 * const compaction = { type: 'compaction', id, encrypted_content: sealCompaction(history) };
 */
export function sealCompaction(items: ResponseItem[]): string {
  return seal(PREFIX, items);
}

function decode(content: string, index: number): ResponseItem[] {
  const items = unseal(PREFIX, content);
  // The string is opaque, not signed: what comes back must still be items, or it was forged.
  if (Array.isArray(items) && items.every((item) => inputItemSchema.safeParse(item).success))
    return items as ResponseItem[];
  throw invalidRequest(
    `input[${index}].encrypted_content`,
    'The compaction item could not be read: it was not produced by intab, or it was altered.',
    'invalid_encrypted_content',
  );
}

/**
 * Replaces each `compaction` item with the history it stands for. The user messages that compaction
 * kept beside it are in that history too (same ids), so their copies before it are dropped.
 *
 * @example
 * expandCompactions([userMsg, compactionItem, newUserMsg]) // → [...original history, newUserMsg]
 */
export function expandCompactions(items: ResponseItem[]): ResponseItem[] {
  if (!items.some((i) => i.type === 'compaction')) return items;
  let out: ResponseItem[] = [];
  items.forEach((item, i) => {
    if (item.type !== 'compaction') {
      out.push(item);
      return;
    }
    const restored = decode(item.encrypted_content, i);
    const ids = new Set(restored.map((r) => r.id));
    out = [...out.filter((o) => !ids.has(o.id)), ...restored];
  });
  return out;
}
