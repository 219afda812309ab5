import type { Conversation } from 'openai/resources/conversations/conversations';
import type { ConversationItem } from 'openai/resources/conversations/items';
import { afterNotFound, batchItemIds, conversationNotFound, duplicateItem } from './conversation-errors';
import { isExpired, isLive, type ResolvedLimits, withExpiry } from './expiry';
import { indexConversationItems, unindexOwner } from './idb-item-index';
import { ownerRange, quiet, type SweepableStore, sweepStore, type TxRunner } from './idb-tx';
import type { IntabTx } from './idb-types';
import type { ListOptions, ListPage } from './types';

/** Every store a conversation's data lives in; deletes and appends span all three. */
type ConvStores = ['conversations', 'conversation_items', 'items'];
type ConvTx = IntabTx<ConvStores, 'readwrite'>;
const CONV_STORES: ConvStores = ['conversations', 'conversation_items', 'items'];

/**
 * The conversation half of IdbStore (see ResponseStore for each method's contract). Like the
 * response half, each call is one transaction that awaits only its own IDB requests.
 *
 * @example
 * const conversations = new IdbConversations(runner, limits);
 * await conversations.append('conv_1', items); // one readwrite transaction per batch
 */
export class IdbConversations {
  constructor(
    private readonly runner: TxRunner,
    private readonly limits: ResolvedLimits,
  ) {}

  async put(conversation: Conversation): Promise<void> {
    const now = this.limits.now();
    await this.runner.run(CONV_STORES, 'readwrite', 'default', async (tx) => {
      const existing = await tx.objectStore('conversations').get(conversation.id);
      // An update keeps the deadline; an expired record is gone, so its id starts afresh and empty.
      if (existing && isExpired(existing, now)) await deleteConversation(tx, conversation.id);
      const expiresAt = isLive(existing, now) ? existing.expiresAt : undefined;
      quiet(tx.objectStore('conversations').put(withExpiry({ conversation, expiresAt }, this.limits)));
    });
  }

  async updateMetadata(id: string, metadata: Conversation['metadata']): Promise<Conversation | undefined> {
    const now = this.limits.now();
    // Read and write in one readwrite transaction: a delete is ordered wholly before or after it,
    // so an update never puts back a conversation that a delete removed meanwhile.
    return this.runner.run(['conversations'], 'readwrite', 'default', async (tx) => {
      const store = tx.objectStore('conversations');
      const existing = await store.get(id);
      if (!isLive(existing, now)) return undefined;
      const conversation = { ...existing.conversation, metadata };
      quiet(store.put({ ...existing, conversation }));
      return conversation;
    });
  }

  async get(id: string): Promise<Conversation | undefined> {
    const record = await this.runner.run(['conversations'], 'readonly', 'default', (tx) =>
      tx.objectStore('conversations').get(id),
    );
    return isLive(record, this.limits.now()) ? record.conversation : undefined;
  }

  async delete(id: string): Promise<boolean> {
    return this.runner.run(CONV_STORES, 'readwrite', 'default', async (tx) => {
      const existing = await tx.objectStore('conversations').get(id);
      await deleteConversation(tx, id);
      return isLive(existing, this.limits.now());
    });
  }

  async append(conversationId: string, items: ConversationItem[]): Promise<void> {
    const ids = batchItemIds(conversationId, items); // checked before the transaction: not IDB work
    const now = this.limits.now();
    // Strict: the conversation is what the next turn reads, so a crash must not fork its history.
    await this.runner.run(CONV_STORES, 'readwrite', 'strict', async (tx) => {
      const store = tx.objectStore('conversation_items');
      if (!isLive(await tx.objectStore('conversations').get(conversationId), now)) {
        throw conversationNotFound(conversationId);
      }
      // Reading the last position and writing after it in this one readwrite transaction is what
      // serializes concurrent appends: IndexedDB never runs two overlapping readwrite transactions.
      const [last, taken] = await Promise.all([
        store.openKeyCursor(ownerRange(conversationId), 'prev'),
        Promise.all(ids.map((id) => store.index('by_item').getKey([conversationId, id]))),
      ]);
      const clash = ids.find((_, i) => taken[i] !== undefined);
      if (clash !== undefined) throw duplicateItem(conversationId, clash);
      const next = last ? last.key[1] + 1 : 0;
      for (const [i, item] of items.entries()) quiet(store.put({ conversationId, position: next + i, item }));
      indexConversationItems(tx.objectStore('items'), conversationId, items);
    });
  }

  async list(conversationId: string, opts: ListOptions): Promise<ListPage<ConversationItem>> {
    const now = this.limits.now();
    return this.runner.run(['conversations', 'conversation_items'], 'readonly', 'default', async (tx) => {
      if (!isLive(await tx.objectStore('conversations').get(conversationId), now)) {
        throw conversationNotFound(conversationId);
      }
      const store = tx.objectStore('conversation_items');
      let range = ownerRange(conversationId);
      if (opts.after !== undefined) {
        const key = await store.index('by_item').getKey([conversationId, opts.after]);
        if (!key) throw afterNotFound(conversationId, opts.after);
        range =
          opts.order === 'asc'
            ? IDBKeyRange.bound(key, [conversationId, Infinity], true)
            : IDBKeyRange.bound([conversationId, -Infinity], key, false, true);
      }
      // One past the page tells whether another page follows without a second query.
      const data: ConversationItem[] = [];
      let cursor = await store.openCursor(range, opts.order === 'asc' ? 'next' : 'prev');
      while (cursor && data.length <= opts.limit) {
        data.push(cursor.value.item);
        cursor = await cursor.continue();
      }
      const hasMore = data.length > opts.limit;
      return { data: hasMore ? data.slice(0, opts.limit) : data, hasMore };
    });
  }

  async getItem(conversationId: string, itemId: string): Promise<ConversationItem | undefined> {
    const now = this.limits.now();
    return this.runner.run(['conversations', 'conversation_items'], 'readonly', 'default', async (tx) => {
      const [conversation, stored] = await Promise.all([
        tx.objectStore('conversations').get(conversationId),
        tx.objectStore('conversation_items').index('by_item').get([conversationId, itemId]),
      ]);
      return isLive(conversation, now) ? stored?.item : undefined;
    });
  }

  async deleteItem(conversationId: string, itemId: string): Promise<boolean> {
    const now = this.limits.now();
    return this.runner.run(CONV_STORES, 'readwrite', 'default', async (tx) => {
      const [conversation, key] = await Promise.all([
        tx.objectStore('conversations').get(conversationId),
        tx.objectStore('conversation_items').index('by_item').getKey([conversationId, itemId]),
      ]);
      if (!isLive(conversation, now) || !key) return false;
      quiet(tx.objectStore('conversation_items').delete(key));
      quiet(tx.objectStore('items').delete([itemId, conversationId]));
      return true;
    });
  }

  /**
   * Same policy and batching as the response sweep: expired first, then oldest `created_at` beyond
   * `maxConversations`, each conversation with its items.
   *
   * @example
   * const { expired, trimmed } = await conversations.sweep();
   */
  sweep(): Promise<{ expired: number; trimmed: number }> {
    return sweepStore(
      (pick) => this.deleteBatch((tx) => pick(tx.objectStore('conversations') as unknown as SweepableStore)),
      this.limits.now(),
      this.limits.maxConversations,
    );
  }

  private deleteBatch(select: (tx: ConvTx) => Promise<string[]>): Promise<number> {
    // Relaxed: a sweep lost to a crash is simply redone by the next one.
    return this.runner.run(CONV_STORES, 'readwrite', 'relaxed', async (tx) => {
      const ids = await select(tx);
      for (const id of ids) await deleteConversation(tx, id);
      return ids.length;
    });
  }
}

/** Removes a conversation, its items and their index entries, in the caller's transaction. */
async function deleteConversation(tx: ConvTx, id: string): Promise<void> {
  quiet(tx.objectStore('conversations').delete(id));
  quiet(tx.objectStore('conversation_items').delete(ownerRange(id)));
  await unindexOwner(tx.objectStore('items'), 'by_conversation', id);
}
