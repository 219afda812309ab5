import type { IDBPObjectStore } from 'idb';
import type { ConversationItem } from 'openai/resources/conversations/items';
import type { ResponseItem } from 'openai/resources/responses/responses';
import { isLive } from './expiry';
import { quiet } from './idb-tx';
import type { IntabDB, IntabStoreName, IntabTx, ItemIndexEntry } from './idb-types';
import type { StoredResponse } from './types';

/** `[itemId, ownerId]`: one entry per copy of an item (see IntabDB). */
export type ItemKey = [string, string];
/** The `items` store inside any readwrite transaction that spans it. */
export type ItemsStore = IDBPObjectStore<IntabDB, ArrayLike<IntabStoreName>, 'items', 'readwrite'>;

/**
 * The `items` entries of one response: its input items, then its output items that carry an id.
 *
 * @example
 * for (const [key, entry] of responseItemEntries(record)) quiet(items.put(entry, key));
 */
export function responseItemEntries(record: StoredResponse): [ItemKey, ItemIndexEntry][] {
  const responseId = record.response.id;
  // Output items are stored as generated. A few wire types leave `id` optional; those can't be referenced.
  const output = record.response.output as unknown as ResponseItem[];
  const entries: [ItemKey, ItemIndexEntry][] = [];
  for (const item of [...record.inputItems, ...output]) {
    if (typeof item.id === 'string') entries.push([[item.id, responseId], { item, responseId }]);
  }
  return entries;
}

/**
 * Replaces a response's entries with those of `record`, in the caller's transaction: a re-put
 * snapshot may have dropped or changed items, so the old entries go first.
 *
 * @example
 * await indexResponse(tx.objectStore('items'), record);
 */
export async function indexResponse(items: ItemsStore, record: StoredResponse): Promise<void> {
  await unindexOwner(items, 'by_response', record.response.id);
  for (const [key, entry] of responseItemEntries(record)) quiet(items.put(entry, key));
}

/**
 * Indexes items appended to a conversation, in the caller's transaction.
 *
 * @example
 * indexConversationItems(tx.objectStore('items'), 'conv_1', batch);
 */
export function indexConversationItems(
  items: ItemsStore,
  conversationId: string,
  batch: ConversationItem[],
): void {
  // Callers checked the ids with batchItemIds.
  for (const item of batch) quiet(items.put({ item, conversationId }, [item.id as string, conversationId]));
}

/**
 * Removes every entry one response or conversation owns, and no other owner's copy of the same item.
 *
 * @example
 * await unindexOwner(tx.objectStore('items'), 'by_response', 'resp_1');
 */
export async function unindexOwner(
  items: ItemsStore,
  by: 'by_response' | 'by_conversation',
  ownerId: string,
): Promise<void> {
  const keys = await items.index(by).getAllKeys(ownerId);
  for (const key of keys) quiet(items.delete(key));
}

/**
 * The first copy of an item whose owner is still live. An expired owner may not have been swept yet,
 * and its items must be as invisible as the owner itself.
 *
 * @example
 * const item = await findLiveItem(tx, 'msg_1', Date.now());
 */
export async function findLiveItem(
  tx: IntabTx<['items', 'responses', 'conversations'], 'readonly'>,
  itemId: string,
  now: number,
): Promise<ResponseItem | ConversationItem | undefined> {
  // `[id]` sorts before every `[id, owner]`, and an array sorts after every string owner.
  const range = IDBKeyRange.bound([itemId], [itemId, []]);
  let cursor = await tx.objectStore('items').openCursor(range);
  while (cursor) {
    const { item, responseId, conversationId } = cursor.value;
    const owner =
      responseId !== undefined
        ? await tx.objectStore('responses').get(responseId)
        : await tx.objectStore('conversations').get(conversationId);
    if (isLive(owner, now)) return item;
    cursor = await cursor.continue();
  }
  return undefined;
}
