import type { ConversationItem } from 'openai/resources/conversations/items';
import { type ApiError, invalidRequest, notFound } from '../common/api-error';

/**
 * The ids of a batch about to be appended, checked before any storage work: every item needs an id
 * (get, delete and `item_reference` address items by it) and no id may repeat within the batch.
 * Both stores call this, so they reject the same batches with the same errors.
 *
 * @example
 * const ids = batchItemIds('conv_1', items); // throws a 400 ApiError on a missing or repeated id
 */
export function batchItemIds(conversationId: string, items: ConversationItem[]): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    // A few wire types (custom tool calls) leave `id` optional; the server must assign one first.
    if (typeof item.id !== 'string') {
      throw invalidRequest(`items[${i}].id`, `Conversation items need an id; items[${i}] has none.`);
    }
    if (seen.has(item.id)) throw duplicateItem(conversationId, item.id);
    seen.add(item.id);
    ids.push(item.id);
  }
  return ids;
}

/**
 * An item id is already in the conversation (or twice in one batch). Ids are unique within a
 * conversation so that getting, deleting and referencing an item by id is unambiguous.
 *
 * @example
 * throw duplicateItem('conv_1', 'msg_1');
 */
export function duplicateItem(conversationId: string, itemId: string): ApiError {
  return invalidRequest(
    'items',
    `Item '${itemId}' already exists in conversation '${conversationId}'.`,
    'duplicate_item',
  );
}

/**
 * The 404 for a conversation that does not exist (never created, deleted, or expired).
 *
 * @example
 * throw conversationNotFound('conv_1');
 */
export function conversationNotFound(conversationId: string): ApiError {
  return notFound(`No conversation found with id '${conversationId}'.`, 'conversation_id');
}

/**
 * The 404 for a list cursor (`after`) that is not an item of the conversation.
 *
 * @example
 * throw afterNotFound('conv_1', 'msg_gone');
 */
export function afterNotFound(conversationId: string, itemId: string): ApiError {
  return notFound(`No item found with id '${itemId}' in conversation '${conversationId}'.`, 'after');
}
