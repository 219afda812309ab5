import type { Conversation } from 'openai/resources/conversations/conversations';
import type { ConversationItem } from 'openai/resources/conversations/items';
import { afterNotFound, batchItemIds, conversationNotFound, duplicateItem } from './conversation-errors';
import { isExpired, isLive, type ResolvedLimits, withExpiry } from './expiry';
import type { ListOptions, ListPage, StoredConversation } from './types';

/**
 * The conversation half of MemoryStore, with IdbStore's semantics (see ResponseStore): values are
 * structured-cloned in and out, an expired conversation is invisible before it is swept, and each
 * call is all-or-nothing.
 *
 * @example
 * const conversations = new MemoryConversations(resolveLimits());
 * await conversations.put(conversation);
 */
export class MemoryConversations {
  private readonly conversations = new Map<string, StoredConversation>();
  /** Per conversation: its items in position order. */
  private readonly items = new Map<string, ConversationItem[]>();

  constructor(private readonly limits: ResolvedLimits) {}

  async put(conversation: Conversation): Promise<void> {
    const copy = structuredClone(conversation);
    const existing = this.live(conversation.id);
    // An update keeps the deadline; an expired record is gone, so its id starts afresh and empty.
    if (!existing) this.deleteNow(conversation.id);
    const record = withExpiry({ conversation: copy, expiresAt: existing?.expiresAt }, this.limits);
    this.conversations.set(conversation.id, record);
  }

  async updateMetadata(id: string, metadata: Conversation['metadata']): Promise<Conversation | undefined> {
    // The check and the write in one synchronous step, as IdbConversations does in one transaction.
    const existing = this.live(id);
    if (!existing) return undefined;
    const conversation = { ...existing.conversation, metadata: structuredClone(metadata) };
    this.conversations.set(id, { ...existing, conversation });
    return structuredClone(conversation);
  }

  async get(id: string): Promise<Conversation | undefined> {
    const record = this.live(id);
    return record && structuredClone(record.conversation);
  }

  async delete(id: string): Promise<boolean> {
    const existed = this.live(id) !== undefined;
    this.deleteNow(id);
    return existed;
  }

  async append(conversationId: string, items: ConversationItem[]): Promise<void> {
    const ids = batchItemIds(conversationId, items);
    if (!this.live(conversationId)) throw conversationNotFound(conversationId);
    const log = this.items.get(conversationId) ?? [];
    const clash = ids.find((id) => log.some((item) => item.id === id));
    if (clash !== undefined) throw duplicateItem(conversationId, clash);
    // Clone the whole batch first: if one item cannot be cloned, none is stored (one "transaction").
    const copies = structuredClone(items);
    this.items.set(conversationId, [...log, ...copies]);
  }

  async list(conversationId: string, opts: ListOptions): Promise<ListPage<ConversationItem>> {
    if (!this.live(conversationId)) throw conversationNotFound(conversationId);
    const log = this.items.get(conversationId) ?? [];
    let start = opts.order === 'asc' ? 0 : log.length;
    if (opts.after !== undefined) {
      const at = log.findIndex((item) => item.id === opts.after);
      if (at < 0) throw afterNotFound(conversationId, opts.after);
      start = opts.order === 'asc' ? at + 1 : at;
    }
    const rest = opts.order === 'asc' ? log.slice(start) : log.slice(0, start).reverse();
    return { data: structuredClone(rest.slice(0, opts.limit)), hasMore: rest.length > opts.limit };
  }

  async getItem(conversationId: string, itemId: string): Promise<ConversationItem | undefined> {
    return structuredClone(this.find(conversationId, itemId));
  }

  async deleteItem(conversationId: string, itemId: string): Promise<boolean> {
    const item = this.find(conversationId, itemId);
    if (!item) return false;
    const log = this.items.get(conversationId) ?? [];
    this.items.set(
      conversationId,
      log.filter((other) => other !== item),
    );
    return true;
  }

  /**
   * An item of any live conversation, for `item_reference`; the caller clones it.
   *
   * @example
   * const item = conversations.findAnywhere('msg_1');
   */
  findAnywhere(itemId: string): ConversationItem | undefined {
    for (const id of this.conversations.keys()) {
      const item = this.find(id, itemId);
      if (item) return item;
    }
    return undefined;
  }

  /**
   * Same policy as IdbConversations.sweep: expired first, then oldest `created_at` (ties by id)
   * beyond `maxConversations`, each with its items.
   *
   * @example
   * const { expired, trimmed } = await conversations.sweep();
   */
  async sweep(): Promise<{ expired: number; trimmed: number }> {
    const now = this.limits.now();
    let expired = 0;
    for (const [id, record] of this.conversations) {
      if (!isExpired(record, now)) continue;
      this.deleteNow(id);
      expired++;
    }
    const max = this.limits.maxConversations;
    const excess = max === null ? 0 : this.conversations.size - max;
    if (excess <= 0) return { expired, trimmed: 0 };
    const oldest = [...this.conversations.values()]
      .map((record) => record.conversation)
      .sort((a, b) => a.created_at - b.created_at || compareIds(a.id, b.id))
      .slice(0, excess);
    for (const conversation of oldest) this.deleteNow(conversation.id);
    return { expired, trimmed: oldest.length };
  }

  /** Live conversations, newest first. */
  recent(limit: number): Conversation[] {
    const now = this.limits.now();
    return [...this.conversations.values()]
      .filter((c) => isLive(c, now))
      .sort((a, b) => b.conversation.created_at - a.conversation.created_at)
      .slice(0, limit)
      .map((c) => structuredClone(c.conversation));
  }

  private live(id: string): StoredConversation | undefined {
    const record = this.conversations.get(id);
    return isLive(record, this.limits.now()) ? record : undefined;
  }

  private find(conversationId: string, itemId: string): ConversationItem | undefined {
    if (!this.live(conversationId)) return undefined;
    return this.items.get(conversationId)?.find((item) => item.id === itemId);
  }

  private deleteNow(id: string): void {
    this.conversations.delete(id);
    this.items.delete(id);
  }
}

/**
 * Code-unit order, which is how IndexedDB orders string keys (and so breaks `created_at` ties).
 *
 * @example
 * ['b', 'a'].sort(compareIds); // ['a', 'b']
 */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
